/* Wine 8 lacks bcryptprimitives.dll, which Rust's std (1.78+) imports for ProcessPrng; this shim
   for running Windows test binaries under Wine forwards it to RtlGenRandom. */
#include <windows.h>
#define RtlGenRandom SystemFunction036
BOOLEAN NTAPI RtlGenRandom(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk; len -= chunk;
    }
    return TRUE;
}
