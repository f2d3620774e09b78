//! The one wire shape every Hark error takes across IPC, the CLI and tool results:
//! `{ "name": ..., "code": ..., "message": ... }`.

use serde::ser::SerializeStruct;

/// Serializes an error as `{name, code, message}`. Every error type's `Serialize` impl calls this so
/// the shape is defined once.
pub fn serialize_error<S: serde::Serializer>(s: S, name: &str, code: &str, message: &str) -> Result<S::Ok, S::Error> {
    let mut st = s.serialize_struct("Error", 3)?;
    st.serialize_field("name", name)?;
    st.serialize_field("code", code)?;
    st.serialize_field("message", message)?;
    st.end()
}
