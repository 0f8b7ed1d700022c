//! Unit tests of rule parsing, `when=` and the rule table.
use super::*;

fn rule(v: &str) -> Result<Rule, String> {
    Rule::parse(v, false).map_err(|e| e.msg)
}

fn ent(inj: &mut Injections, tid: i32, a: Arch, nr: u64, args: [u64; 6]) -> Option<Fired> {
    let mut mem = EntryMem::new(std::process::id() as i32);
    let c = Call {
        tid,
        arch: a,
        nr,
        name: None,
        args: &args,
        traced: true,
    };
    inj.on_entry(&c, &mut mem)
}

#[test]
fn targeted_rules_stack_and_count_their_own_calls() {
    let a = Arch::native();
    let open = a.syscall_nr("openat").unwrap() as u64;
    let mut inj = Injections::new(vec![
        rule("openat:error=EIO:arg3&0100:when=2").unwrap(),
        rule("openat:error=EACCES:fd=-100:when=1+").unwrap(),
        // A plain rule is replaced by a later plain one, not targeted ones.
        rule("openat:error=ENXIO:when=1").unwrap(),
        rule("openat:retval=9:when=3").unwrap(),
    ]);
    let creat = [7, 0, 0o101, 0, 0, 0];
    let cwd = [(-100i64) as u32 as u64, 0, 0, 0, 0, 0];
    let ret = |f: Option<Fired>| f.and_then(|f| f.action.ret);
    // O_CREAT calls: the first is counted by rule 1 only, nothing fires.
    assert_eq!(ret(ent(&mut inj, 1, a, open, creat)), None);
    assert_eq!(ret(ent(&mut inj, 1, a, open, creat)), Some(-5));
    // AT_FDCWD (low 32 bits, as a C int) matches rule 2 at once.
    assert_eq!(ret(ent(&mut inj, 1, a, open, cwd)), Some(-13));
    // Neither condition: only the plain rule counts; its 4th call.
    assert_eq!(ret(ent(&mut inj, 1, a, open, [5, 0, 0, 0, 0, 0])), None);
    let mut inj = Injections::new(vec![rule("openat:retval=9:when=3").unwrap()]);
    for _ in 0..2 {
        assert_eq!(ret(ent(&mut inj, 1, a, open, creat)), None);
    }
    assert_eq!(ret(ent(&mut inj, 1, a, open, creat)), Some(9));
}

#[test]
fn rtrace_errors_say_why() {
    for (spec, why) in [
        ("openat:frob=1", "unknown key 'frob'"),
        ("openat:error=EIO:keep", "'keep' is not KEY=VALUE"),
        ("openat:error=EIO:path=/etc/[ab", "unterminated '['"),
        (
            "openat:error=EIO:path=/a:path=/b",
            "conflicting path= conditions",
        ),
        ("openat:error=EIO:fd=3:fd=4", "conflicting conditions on fd"),
        ("openat:error=EIO:arg0=1", "numbered arg1 to arg6"),
        ("openat:error=EIO:arg2~1", "expected arg2=, !=, <"),
        (
            "getpid:error=EIO:path=/x",
            "no syscall in the set takes a path argument",
        ),
        ("getpid:error=EIO:fd=1", "takes a descriptor argument"),
    ] {
        let e = rule(spec).unwrap_err();
        assert!(
            e.starts_with(&format!("invalid inject argument '{spec}': ")),
            "{e}"
        );
        assert!(e.contains(why), "{spec}: {e}");
    }
    assert!(rule("read:error=EIO:fd>=3").unwrap().targeted());
    assert!(!rule("read:error=EIO:when=3").unwrap().targeted());
}

#[test]
fn when_forms() {
    let w = |s| When::parse(s).unwrap();
    let fired = |w: When| (1..=12).filter(|&n| w.fires(n)).collect::<Vec<_>>();
    assert_eq!(fired(w("3")), vec![3]);
    assert_eq!(fired(w("10+")), vec![10, 11, 12]);
    assert_eq!(fired(w("2+4")), vec![2, 6, 10]);
    assert_eq!(fired(w("2..4")), vec![2, 3, 4]);
    assert_eq!(fired(w("1..2+3")), vec![1]);
    assert_eq!(fired(w("1..9+4")), vec![1, 5, 9]);
    assert_eq!(fired(When::default()).len(), 12);
    for bad in ["0", "65536", "3..2", "3..", "", "x", "2+65536", "+3"] {
        assert!(When::parse(bad).is_none(), "{bad}");
    }
}

#[test]
fn rules_as_strace_checks_them() {
    let r = rule("openat:error=ENOENT:when=3").unwrap();
    assert_eq!(r.action.ret, Some(-2));
    assert_eq!(rule("openat:error=eio").unwrap().action.ret, Some(-5));
    assert_eq!(rule("openat:error=4095").unwrap().action.ret, Some(-4095));
    assert_eq!(rule("openat:retval=0x10").unwrap().action.ret, Some(16));
    assert_eq!(rule("openat:retval=010").unwrap().action.ret, Some(8));
    assert_eq!(rule("openat:retval=0").unwrap().action.ret, Some(0));
    assert_eq!(
        rule("openat:signal=SIGUSR1").unwrap().action.signal,
        Some(10)
    );
    let d = rule("openat:delay_enter=10ms:delay_exit=1.5")
        .unwrap()
        .action;
    assert_eq!(d.delay_enter, Some(Duration::from_millis(10)));
    assert_eq!(d.delay_exit, Some(Duration::from_nanos(1500)));
    assert_eq!(
        rule("openat:syscall=getpid:error=ENOENT")
            .unwrap()
            .action
            .syscall
            .as_deref(),
        Some("getpid")
    );
    let f = Rule::parse("openat:when=4", true).unwrap();
    assert_eq!(f.action.ret, Some(-(libc::ENOSYS as i64)));
    for bad in [
        "openat",
        "openat:error=FOO",
        "openat:error=4096",
        "openat:when=0",
        "openat:retval=1:error=EIO",
        "openat:error=EIO:error=ENOENT",
        "openat:syscall=write:error=EIO",
        "openat:syscall=getpid",
        "openat:signal=99",
        "openat:delay_enter=abc",
        "openat:delay_exit=-5",
    ] {
        assert_eq!(
            rule(bad).unwrap_err(),
            format!("invalid inject argument '{bad}'")
        );
    }
    for bad in ["openat:retval=1", "openat:signal=SIGUSR1"] {
        assert!(Rule::parse(bad, true).is_err(), "{bad}");
    }
    assert_eq!(
        rule("nosuch:error=EIO").unwrap_err(),
        "invalid system call 'nosuch'"
    );
}

#[test]
fn counts_per_thread_and_syscall_later_rules_win() {
    let a = Arch::native();
    let open = a.syscall_nr("openat").unwrap() as u64;
    let close = a.syscall_nr("close").unwrap() as u64;
    let mut inj = Injections::new(vec![
        rule("openat,close:error=EIO:when=2").unwrap(),
        rule("close:retval=7:when=1").unwrap(),
    ]);
    assert_eq!(ent(&mut inj, 1, a, open, [0; 6]), None);
    let f = ent(&mut inj, 1, a, open, [0; 6]).unwrap();
    assert_eq!((f.action.ret, f.nr), (Some(-5), Some(u64::MAX)));
    assert_eq!(f.marks(), " (INJECTED)");
    assert_eq!(ent(&mut inj, 1, a, open, [0; 6]), None);
    // Another thread counts from 1 again.
    assert_eq!(ent(&mut inj, 2, a, open, [0; 6]), None);
    assert!(ent(&mut inj, 2, a, open, [0; 6]).is_some());
    // close: the later rule.
    assert_eq!(
        ent(&mut inj, 1, a, close, [0; 6]).unwrap().action.ret,
        Some(7)
    );
    assert_eq!(ent(&mut inj, 1, a, close, [0; 6]), None);
    assert_eq!(inj.numbers(a).len(), 2);
    inj.forget(1);
    assert_eq!(ent(&mut inj, 1, a, open, [0; 6]), None);
}

#[test]
fn delays_like_strace_parse_ts() {
    use std::time::Duration;
    let d = |v: &str| super::parse_delay(v);
    for v in ["800000", "8e5", "800ms", "+8e8ns", ".8s", "0.8e+6us"] {
        assert_eq!(d(v), Some(Duration::from_millis(800)), "{v}");
    }
    assert_eq!(d(".16E7"), Some(Duration::from_millis(1600)));
    assert_eq!(d("1.6e+6us"), Some(Duration::from_millis(1600)));
    for bad in ["", "s", "-1", "1h", "1-2", "1ss", "e5"] {
        assert_eq!(d(bad), None, "{bad}");
    }
}

#[test]
fn poke_rules() {
    let r = super::Rule::parse("chdir:poke_enter=@arg1=53747261636521", false).unwrap();
    assert_eq!(r.action.pokes.len(), 1);
    assert!(super::Rule::parse("chdir:poke_exit=@arg1=00:poke_exit=@arg2=00", false).is_err());
    assert!(super::Rule::parse("chdir:poke_enter=@arg1=00", true).is_err());
    assert!(super::Rule::parse("chdir:poke_enter=", false).is_err());
}
