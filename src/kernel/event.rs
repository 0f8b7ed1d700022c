//! Kernel events as values: a raw record decoded with its event's format,
//! rendered as trace-cmd-like text or as JSON Lines from the same values.

use super::format::{common, decode_field, EventFormat};
use super::tracefs::Tracefs;
use crate::value::text::{render_value, RenderOpts};
use crate::value::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;

/// One decoded kernel event.
#[derive(Clone, Debug, PartialEq)]
pub struct KEvent {
    /// Ring-buffer time stamp (ns, the instance's trace clock).
    pub ts: u64,
    /// CPU whose buffer held it.
    pub cpu: u32,
    /// `common_pid` (the thread id).
    pub pid: i32,
    /// The event's format.
    pub format: Arc<EventFormat>,
    /// Field values, in format order.
    pub fields: Vec<(String, Value)>,
}

impl KEvent {
    /// The value of field `name`; `pid`, `cpu` and `event` are pseudo-fields.
    pub fn field(&self, name: &str) -> Option<Value> {
        match name {
            "pid" | "common_pid" => Some(Value::Int(self.pid as i64)),
            "cpu" => Some(Value::UInt(self.cpu as u64)),
            "event" => Some(Value::sym_owned(format!(
                "{}:{}",
                self.format.system, self.format.name
            ))),
            _ => self
                .fields
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone()),
        }
    }
}

/// Event formats by type id, loaded on demand from `events/*/*/format`.
pub struct Formats {
    top: Tracefs,
    by_id: HashMap<u16, Arc<EventFormat>>,
}

impl Formats {
    /// An empty registry over tracefs `top`.
    pub fn new(top: &Tracefs) -> Formats {
        Formats {
            top: top.clone(),
            by_id: HashMap::new(),
        }
    }

    /// Loads `events/SYSTEM/NAME/format`.
    pub fn load(&mut self, system: &str, name: &str) -> Result<Arc<EventFormat>, String> {
        self.load_with(system, name, |_| {})
    }

    /// Loads `events/SYSTEM/NAME/format` and lets `fix` adjust it before it
    /// is registered (an event probe shown as the tracepoint it reads).
    pub fn load_with(
        &mut self,
        system: &str,
        name: &str,
        fix: impl FnOnce(&mut EventFormat),
    ) -> Result<Arc<EventFormat>, String> {
        let text = self.top.read(&format!("events/{system}/{name}/format"))?;
        let mut f = super::format::parse_format(system, &text)?;
        fix(&mut f);
        let f = Arc::new(f);
        self.by_id.insert(f.id, f.clone());
        Ok(f)
    }

    /// The format of type `id`, if loaded.
    pub fn get(&self, id: u16) -> Option<&Arc<EventFormat>> {
        self.by_id.get(&id)
    }

    /// Decodes one record; `None` for a type that was not loaded.
    pub fn decode(&self, cpu: u32, ts: u64, rec: &[u8]) -> Option<KEvent> {
        let (ty, pid) = common(rec)?;
        let format = self.by_id.get(&ty)?.clone();
        let fields = format
            .fields
            .iter()
            .map(|f| {
                (
                    f.name.clone(),
                    decode_field(f, rec).unwrap_or(Value::Unknown),
                )
            })
            .collect();
        Some(KEvent {
            ts,
            cpu,
            pid,
            format,
            fields,
        })
    }
}

/// Command names of pids: /proc, then the kernel's `saved_cmdlines` for
/// processes that are gone (cached until [`Comms::clear`]).
#[derive(Default)]
pub struct Comms {
    cache: HashMap<i32, String>,
    saved: Option<HashMap<i32, String>>,
    saved_path: Option<std::path::PathBuf>,
}

impl Comms {
    /// Names from /proc, falling back to tracefs `top`'s `saved_cmdlines`.
    pub fn with_saved(top: &Tracefs) -> Comms {
        Comms {
            saved_path: Some(top.path("saved_cmdlines")),
            ..Default::default()
        }
    }

    /// The comm of `pid`, `<...>` when it is unknown (as trace-cmd prints).
    pub fn get(&mut self, pid: i32) -> &str {
        let saved = &mut self.saved;
        let saved_path = &self.saved_path;
        self.cache.entry(pid).or_insert_with(|| {
            if pid == 0 {
                return "<idle>".into();
            }
            if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/comm")) {
                return s.trim_end().to_string();
            }
            let table = saved.get_or_insert_with(|| {
                let text = saved_path
                    .as_ref()
                    .and_then(|p| std::fs::read_to_string(p).ok())
                    .unwrap_or_default();
                text.lines()
                    .filter_map(|l| {
                        let (p, c) = l.split_once(' ')?;
                        Some((p.parse().ok()?, c.to_string()))
                    })
                    .collect()
            });
            table.get(&pid).cloned().unwrap_or_else(|| "<...>".into())
        })
    }

    /// Forgets cached names (a process may have exec'd).
    pub fn clear(&mut self) {
        self.cache.clear();
        self.saved = None;
    }
}

/// Appends the `name=value` list of an event's fields.
pub fn render_fields(out: &mut String, ev: &KEvent) {
    let o = RenderOpts::default();
    for (i, (name, v)) in ev.fields.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(name);
        out.push('=');
        render_value(out, v, &o);
    }
}

/// One trace-cmd-like text line (without the newline):
/// `            comm-pid   [cpu] secs.usecs: event: fields`.
pub fn text_line(out: &mut String, ev: &KEvent, comm: &str) {
    let _ = write!(
        out,
        "{:>16}-{:<7} [{:03}] {:>6}.{:06}: {}: ",
        comm,
        ev.pid,
        ev.cpu,
        ev.ts / 1_000_000_000,
        (ev.ts % 1_000_000_000) / 1000,
        ev.format.name
    );
    render_fields(out, ev);
}

/// A kernel event's JSON object (docs/schema/kernel.schema.json): `type`
/// first, then the keys in sorted order; `fields` by name.
#[derive(serde::Serialize)]
struct KernelJson<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    comm: &'a str,
    cpu: u32,
    event: &'a str,
    fields: BTreeMap<&'a str, &'a Value>,
    pid: i32,
    system: &'a str,
    ts_ns: u64,
}

/// One JSON object (without the newline).
pub fn json_line(out: &mut String, ev: &KEvent, comm: &str) {
    let obj = KernelJson {
        ty: "kernel",
        comm,
        cpu: ev.cpu,
        event: &ev.format.name,
        fields: ev.fields.iter().map(|(n, v)| (n.as_str(), v)).collect(),
        pid: ev.pid,
        system: &ev.format.system,
        ts_ns: ev.ts,
    };
    crate::value::serialize::write_json(out, &obj);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::format::parse_format;
    use crate::value::StrVal;

    fn ev() -> KEvent {
        let f = parse_format(
            "sched",
            "name: e\nID: 7\nformat:\n\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n\
             \tfield:char c[4];\toffset:12;\tsize:4;\tsigned:0;\n",
        )
        .unwrap();
        KEvent {
            ts: 12_345_678_901,
            cpu: 1,
            pid: 42,
            format: Arc::new(f),
            fields: vec![
                ("n".into(), Value::Int(-3)),
                (
                    "c".into(),
                    Value::Str(StrVal {
                        bytes: b"ab".to_vec(),
                        truncated: false,
                        c_string: true,
                    }),
                ),
            ],
        }
    }

    #[test]
    fn text_and_json_from_the_same_values() {
        let e = ev();
        let mut t = String::new();
        text_line(&mut t, &e, "prog");
        assert_eq!(
            t,
            "            prog-42      [001]     12.345678: e: n=-3 c=\"ab\""
        );
        let mut j = String::new();
        json_line(&mut j, &e, "prog");
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["fields"]["n"], -3);
        assert_eq!(v["fields"]["c"], "ab");
        assert_eq!(v["pid"], 42);
        assert_eq!(v["event"], "e");
        assert_eq!(e.field("event"), Some(Value::sym_owned("sched:e".into())));
    }
}
