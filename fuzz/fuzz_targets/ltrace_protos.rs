//! ltrace prototype files (`-F FILE`, `/etc/ltrace.conf` syntax): types,
//! typedefs, enums, structs, arrays with length expressions, string
//! lenses, `...` and the prototypes that use them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtrace::ltrace::proto::Protos;
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut protos = Protos::empty();
    if protos.load_str(&text, "fuzz.conf").is_ok() {
        for name in text
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty())
            .take(32)
        {
            if let Some(p) = protos.get(name) {
                let _ = (p.name(), p.ret(), p.params().len(), p.split());
            }
        }
    }
    // On top of the built-in prototypes, as `rltrace -F` loads it (the
    // built-in set is parsed once: parsing it per input cost ~300 ms).
    static BUILTIN: OnceLock<Protos> = OnceLock::new();
    let mut builtin = BUILTIN.get_or_init(Protos::builtin).clone();
    let _ = builtin.load_str(&text, "fuzz.conf");
});
