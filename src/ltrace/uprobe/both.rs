//! The kernel backend's ptrace side when some selected functions cannot be
//! shown from what uprobes fetch (floats, structs, out-parameters, a
//! printf-style format the program may pass floats with): those get the ptrace backend's INT3 breakpoints and
//! return-address hijack ([`Ltrace`] restricted to them), and their calls,
//! formatted from the stopped thread, go to the consumer as messages
//! stamped with the uprobes' clock, so it pairs, nests and orders them with
//! the kernel's calls. The lifecycle lines stay with [`LifeHandler`].

use crate::engine::ptrace::Tid;
use crate::engine::{Event, Handler, Resume, Stamp};
use crate::ltrace::cli::Options;
use crate::ltrace::format::{FormatOpts, DEFAULT_ARRAY_LEN};
use crate::ltrace::inject::Injector;
use crate::ltrace::output::{LeaderOpts, Out};
use crate::ltrace::sites::Selection;
use crate::ltrace::trace::{HandlerOpts, Ltrace};
use crate::ltrace::uprobe::{KPlan, LifeHandler};

/// The lifecycle handler, and breakpoints for the functions left to ptrace.
pub(in crate::ltrace::uprobe) struct Both {
    pub life: LifeHandler,
    pub calls: Option<Ltrace>,
}

/// The breakpoint handler for `kp`'s functions left to ptrace, if any.
pub(in crate::ltrace::uprobe) fn ptrace_side(
    o: &Options,
    kp: &KPlan,
    lead: LeaderOpts,
) -> Option<Ltrace> {
    if kp.by_ptrace.is_empty() {
        return None;
    }
    let hopts = HandlerOpts {
        sel: Selection {
            plt: Some(kp.filter.clone()),
            libs: Vec::new(),
            x: None,
            only: Some(kp.by_ptrace.iter().map(|(n, _)| n.clone()).collect()),
        },
        hide_caller: o.e_filters.is_empty(),
        follow: false,
        count: false,
        no_signals: o.no_signals,
        where_depth: 0,
        main_name: None,
        debug: o.debug,
        fmt: FormatOpts {
            string_len: o.string_len,
            demangle: o.demangle,
        },
        array_len: o.max_elts.unwrap_or(DEFAULT_ARRAY_LEN),
        json: false,
    };
    // Its own lines (signals, exits) are the lifecycle handler's.
    let out = Out::new(Box::new(std::io::sink()), lead);
    let (protos, _) = crate::ltrace::uprobe::load_protos(o);
    let inject = Injector::parse(&[]).ok()?;
    Some(Ltrace::new(hopts, protos, out, None, inject))
}

impl Handler for Both {
    fn event(&mut self, ev: Event<'_>, when: &Stamp) {
        if let Some(c) = &mut self.calls {
            c.event(ev, when);
        }
        self.life.event(ev, when);
    }

    fn signal_stop(&mut self, tid: Tid, sig: i32, info: &[u8; 128]) -> Resume {
        if let Some(r) = self.calls.as_mut().and_then(|c| c.own_trap(tid, sig, info)) {
            return r;
        }
        self.life.signal_stop(tid, sig, info)
    }

    fn detach_requests(&mut self) -> Vec<Tid> {
        let mut v = self.life.detach_requests();
        if let Some(c) = &mut self.calls {
            v.extend(c.detach_requests());
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    fn task_ready(&mut self, tid: Tid) {
        if let Some(c) = &mut self.calls {
            c.task_ready(tid);
        }
        self.life.task_ready(tid);
    }

    fn detaching(&mut self, tid: Tid) {
        if let Some(c) = &mut self.calls {
            c.detaching(tid);
        }
        self.life.detaching(tid);
    }
}
