//! The `-h` text of rstrace.
/// The `-h` text.
pub const HELP: &str = "\
Usage: rstrace [-ACfhiknqrtTvVwxyzZ] [-I N] [-b execve] [-e EXPR]...
               [-a COLUMN] [-o FILE] [-s STRSIZE] [-X FORMAT] [-S SORTBY]
               [-P PATH]... [-p PID]... [--seccomp-bpf] [--json]
               { -p PID | [-E VAR=VAL]... [-u USERNAME] PROG [ARGS] }

rstrace traces system calls like strace(1) and takes strace's options.

General:
  -e EXPR        a qualifying expression: OPTION=[!]all or OPTION=[!]VAL1[,VAL2]...
     options:    trace, abbrev, verbose, raw, signal, status, quiet, decode-fds
Startup:
  -E VAR=VAL     put VAR=VAL in the environment for command (-E VAR removes it)
  -p PID         trace process with process id PID, may be repeated
  -u USERNAME    run command as USERNAME
Tracing:
  -b execve      detach on execve syscall
  -f             follow forks;  -ff: with -o, one output file per process
  -I N           interruptible: 1 anywhere, 2 waiting (default), 3 never, 4 never_tstp
  --seccomp-bpf / --no-seccomp-bpf
                 stop only at traced syscalls (on by default with -f and a filter)
  --no-syscall-info
                 read registers instead of PTRACE_GET_SYSCALL_INFO
  --no-cpu-pin   do not run rstrace and an unfiltered command on one CPU
                 (pinning halves the cost of each stop; the command still
                 sees its original sched_getaffinity mask)
Filtering:
  -e trace=[!][?]{SYSCALL|%GROUP|/REGEX|all|none}[,...]
     groups:     %clock %creds %desc %file %fstat %fstatfs %ipc %lstat %memory
                 %net %process %pure %signal %stat %%stat %statfs %%statfs
  -e signal=SET  print only the signals in SET
  -e status=SET  successful, failed, unfinished, unavailable, detached
  -P PATH        trace accesses to PATH
  -z / -Z        print only successful / failed syscalls
Output format:
  -a COLUMN      alignment column for results (default 40)
  -i             print instruction pointer
  -n             print syscall number
  -o FILE        send trace output to FILE instead of stderr;  -A: append
  -q, -qq        suppress attach/detach, and exit messages
  -r             relative timestamps;  -t, -tt, -ttt: absolute timestamps
  -s STRSIZE     limit length of printed strings (default 32)
  -T             print time spent in each syscall
  -v             print structures unabbreviated
  -x, -xx        print non-ASCII / all strings in hex
  -X FORMAT      raw, abbrev or verbose constants
  -y             print paths of file descriptors
  -Y             print command names of pids (--decode-pids=comm)
  --pidns-translation
                 print pids in rstrace's PID namespace too (--decode-pids=pidns)
  --json         one JSON object per event instead of text
  --normalize    stable placeholders for pids, addresses, times, temp paths
Statistics:
  -c             summary only;  -C: summary and trace
  -S SORTBY      time, calls, errors, name, avg-time, min-time, max-time, nothing
  -w             summarise wall-clock latency (default: system time)
Tampering:
  -e inject=SET[:error=ERRNO|:retval=VALUE][:signal=SIG][:syscall=SYSCALL]
            [:delay_enter=DELAY][:delay_exit=DELAY][:when=WHEN]
            [:path=GLOB][:argN OP VALUE][:fd OP VALUE]    (OP: = != < <= > >= &)
                 rules with path=/argN/fd conditions stack; others replace
  -e fault=SET[:error=ERRNO][:when=WHEN]   (conditions as for inject)
  --replay-faults FILE[:trace=SET]
                 inject the errors of a recorded run (rstrace --json, rtrace
                 record) at the same calls; SET defaults to %file
Miscellaneous:
  -h             this help;  -V: version
";
