"""What a person does to top-level X windows, for the e2e tests (no window manager runs under Xvfb).

usage: x11_windows.py list TITLE    prints the ids of the mapped windows titled TITLE, one a line
       x11_windows.py close TITLE   asks each of them to close, as a title bar's close button does
                                   (a WM_DELETE_WINDOW client message), and prints how many
"""
import ctypes
import sys

x = ctypes.cdll.LoadLibrary("libX11.so.6")
x.XOpenDisplay.restype = ctypes.c_void_p
x.XDefaultRootWindow.restype = ctypes.c_ulong
x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x.XInternAtom.restype = ctypes.c_ulong
x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
x.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                         ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                         ctypes.POINTER(ctypes.c_uint)]
x.XFetchName.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_char_p)]
x.XFree.argtypes = [ctypes.c_void_p]


class XWindowAttributes(ctypes.Structure):
    # Only map_state is read; the fields before it fix its offset (64-bit Xlib layout).
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("border_width", ctypes.c_int), ("depth", ctypes.c_int), ("visual", ctypes.c_void_p),
                ("root", ctypes.c_ulong), ("c_class", ctypes.c_int), ("bit_gravity", ctypes.c_int),
                ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int),
                ("backing_planes", ctypes.c_ulong), ("backing_pixel", ctypes.c_ulong),
                ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong),
                ("map_installed", ctypes.c_int), ("map_state", ctypes.c_int),
                ("all_event_masks", ctypes.c_long), ("your_event_mask", ctypes.c_long),
                ("do_not_propagate_mask", ctypes.c_long), ("override_redirect", ctypes.c_int),
                ("screen", ctypes.c_void_p)]


class XClientMessageEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("l", ctypes.c_long * 5)]


class XEvent(ctypes.Union):
    _fields_ = [("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


x.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(XWindowAttributes)]
x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(XEvent)]
IS_VIEWABLE = 2
CLIENT_MESSAGE = 33


def titled(d, title):
    root = x.XDefaultRootWindow(d)
    r, p, children, n = ctypes.c_ulong(), ctypes.c_ulong(), ctypes.POINTER(ctypes.c_ulong)(), ctypes.c_uint()
    if not x.XQueryTree(d, root, ctypes.byref(r), ctypes.byref(p), ctypes.byref(children), ctypes.byref(n)):
        return []
    found = []
    for i in range(n.value):
        w = children[i]
        name = ctypes.c_char_p()
        if x.XFetchName(d, w, ctypes.byref(name)) and name.value is not None:
            matches = name.value.decode("utf-8", "replace") == title
            x.XFree(name)
            attrs = XWindowAttributes()
            if matches and x.XGetWindowAttributes(d, w, ctypes.byref(attrs)) and attrs.map_state == IS_VIEWABLE:
                found.append(w)
    if n.value:
        x.XFree(children)
    return found


def main():
    what, title = sys.argv[1], sys.argv[2]
    d = ctypes.c_void_p(x.XOpenDisplay(None))
    assert d.value, "cannot open the X display"
    windows = titled(d, title)
    if what == "list":
        for w in windows:
            print(w)
    elif what == "close":
        protocols = x.XInternAtom(d, b"WM_PROTOCOLS", 0)
        delete = x.XInternAtom(d, b"WM_DELETE_WINDOW", 0)
        for w in windows:
            ev = XEvent()
            ev.xclient.type = CLIENT_MESSAGE
            ev.xclient.window = w
            ev.xclient.message_type = protocols
            ev.xclient.format = 32
            ev.xclient.l[0] = delete
            ev.xclient.l[1] = 0  # CurrentTime
            x.XSendEvent(d, w, 0, 0, ctypes.byref(ev))
        x.XSync(d, 0)
        print(len(windows))
    else:
        sys.exit(__doc__)


main()
