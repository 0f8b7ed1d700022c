#!/usr/bin/env bash
# Regenerates the seed corpora in fuzz/corpus/<target>/ from the test
# programs (built here with gcc), this machine's tracefs format files, the
# shipped ltrace prototype files and sample specs. The committed corpus is
# what this wrote; run it again only to refresh the seeds.
set -euo pipefail
cd "$(dirname "$0")"
C=corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p $C/{elf_symbols,dwarf,unwind,tracefs_format,ringbuf,ltrace_protos,spec_probe_break_watch,spec_filters,trace_file}

# ELF files: PIE -O0 with DWARF 5, -O2 (location lists), non-PIE DWARF 4,
# compressed debug sections, 32-bit, stripped, a shared library.
src=../testprogs
gcc -O0 -g -o "$tmp/args" $src/bp_args.c
gcc -O2 -g -o "$tmp/args-O2" $src/bp_args.c
gcc -O0 -gdwarf-4 -no-pie -fno-pie -o "$tmp/fib-nopie-dw4" $src/bp_fib.c
gcc -O0 -g -gz=zlib -o "$tmp/types-gz" $src/wp_types.c
gcc -O2 -g -fomit-frame-pointer -o "$tmp/fib-O2-nofp" $src/bp_fib.c
gcc -m32 -O0 -g -o "$tmp/fib-m32" $src/bp_fib.c 2>/dev/null || true
gcc -O2 -s -o "$tmp/args-stripped" $src/bp_args.c
gcc -O0 -g -shared -fPIC -o "$tmp/lib.so" $src/bp_lib.c
gcc -O0 -g -fno-plt -o "$tmp/args-noplt" $src/bp_args.c
for f in args args-stripped fib-m32 lib.so args-noplt fib-nopie-dw4; do
    [ -e "$tmp/$f" ] && cp "$tmp/$f" $C/elf_symbols/$f
done
for f in args args-O2 fib-nopie-dw4 types-gz; do cp "$tmp/$f" $C/dwarf/$f; done
# unwind: 8 header bytes (stack pointer offset, pc offset) then the ELF.
for f in fib-O2-nofp args fib-nopie-dw4; do
    { printf '\x40\x00\x10\x00\x00\x00\x00\x00'; cat "$tmp/$f"; } >$C/unwind/$f
done

# tracefs format files (text, NUL, a record).
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
for ev in sched/sched_switch sched/sched_process_exec syscalls/sys_enter_openat \
    syscalls/sys_exit_read signal/signal_generate task/task_rename kmem/kmalloc \
    irq/irq_handler_entry ftrace/function raw_syscalls/sys_enter; do
    if [ -r $T/events/$ev/format ]; then
        { cat $T/events/$ev/format; printf '\0'; head -c 64 /dev/urandom; } \
            >$C/tracefs_format/"${ev//\//_}"
    fi
done
[ -r $T/events/header_page ] && cp $T/events/header_page $C/tracefs_format/header_page

# Ring-buffer pages (first byte: layout selector, 0 = 64-bit default).
python3 - "$C/ringbuf" <<'PY'
import struct, sys, os
out = sys.argv[1]
def ev(type_len, delta, body=b""):
    return struct.pack("<I", (delta << 5) | type_len) + body
def page(events, flags=0, missed=None):
    data = b"".join(events)
    p = struct.pack("<QQ", 1_000_000, len(data) | flags) + data
    if missed is not None:
        p += struct.pack("<Q", missed)
    return p
rec = struct.pack("<HBBi", 7, 0, 0, 4242) + b"abcdefgh"       # 16 bytes
small = ev(len(rec) // 4, 10, rec)
big = ev(0, 3, struct.pack("<I", len(rec) + 4) + rec)         # length word form
ext = ev(30, 5, struct.pack("<I", 2))                          # time extend
stamp = ev(31, 7, struct.pack("<I", 1))                        # absolute stamp
pad = ev(29, 4, struct.pack("<I", 8) + b"\0" * 8)              # discarded event
seeds = {
    "records": page([small, big, small]),
    "extend_stamp": page([ext, small, stamp, big]),
    "padding": page([small, pad, small, ev(29, 0)]),
    "missed": page([small], flags=1 << 31 | 1 << 30, missed=17),
    "missed_flag": page([small], flags=1 << 31),
}
for name, p in seeds.items():
    open(os.path.join(out, name), "wb").write(b"\0" + p)
open(os.path.join(out, "commit32"), "wb").write(b"\x81" + struct.pack("<QI", 5, 8) + small[:8])
PY

# ltrace prototype files.
cp ../src/ltrace/protos/libm.conf ../src/ltrace/protos/libpthread.conf $C/ltrace_protos/
[ -r /etc/ltrace.conf ] && head -c 6000 /etc/ltrace.conf >$C/ltrace_protos/etc-ltrace.conf
cat >$C/ltrace_protos/mixed.conf <<'EOF'
typedef color = enum(RED, GREEN=3, BLUE);
typedef pt = struct(int, long, string);
int f(color, pt*, array(int, arg3), int);
string[arg2] g(string, ulong);
void h(format, ...);
hex(uint) k(char*, +addr, hide(int), bool(int));
double m(float, double);
EOF

# Specs: the first byte picks the parser (see each target's source).
w() { printf "$1" >"$2"; }
P=$C/spec_probe_break_watch
w '\x00u:./prog:compute n s' $P/probe-dwarf
w '\x00p:x /bin/bash:0x4f2a0 a=%%di:u64 b=+8(%%sp):string' $P/probe-kernel
w '\x00ur:libc:malloc $retval' $P/probe-ret
w '\x01ret:fib if $rdi == 3' $P/break-ret
w '\x01libc.so.6:getpid' $P/break-lib
w '\x01*0x401136' $P/break-addr
w '\x01file.c:42' $P/break-line
w '\x01visit if n > 5 && p->x == 3' $P/break-cond
w '\x02$arg1 * 3 + ($rax & 0xff) >= -2 || !$retval' $P/bcond
w '\x02x / $arg2 %% 7 << 65' $P/bcond-div
w "\\x03c == 'A' && \$pc == \$rip && -(~n) > 5 || arr[2] != '\\\\n'" $P/vcond
w '\x04cfg.origin.x' $P/path
w '\x04table[3]->next[1].y' $P/path-deref
w '\x05*0x601040:4' $P/watch-addr
w '\x05config.limits.max' $P/watch-member
w '\x06--count\0compute\0ret:compute\0--\0./prog' $P/break-cli
w '\x06--bt\0--locals\0visit\0-p\0001234' $P/break-cli-pid
w '\x07counter\0--rw\0--bt\0-p\0001234' $P/watch-cli
w '\x08-p\0001\0u:./prog:f\0--\0./prog' $P/kernel-cli
F=$C/spec_filters
w '\x00open,read,%%file,/^set.*id$,?nosuch,!close' $F/set
w '\x01openat:error=ENOENT:when=2+3' $F/inject
w '\x81read:delay_enter=10ms:delay_exit=1s:when=5..7' $F/fault
w '\x01getpid:retval=42:signal=SIGUSR1' $F/inject-retval
w '\x02trace=%%network,!connect' $F/expr-trace
w '\x02signal=!SIGCHLD' $F/expr-signal
w '\x02status=failed,unfinished' $F/expr-status
w '\x02read=0,3-5' $F/expr-read
w '\x03-f\0-e\0trace=open\0-o\0out\0-s\000128\0--\0ls' $F/strace-cli
w '\x03-c\0-S\0calls\0-U\0name,calls\0ls' $F/strace-cli-c
w '\x04malloc@libc.so.6-free\0/^str/@MAIN' $F/ltrace-filter
w '\x05libc.so*' $F/lib-pattern
w '\x05/lib(c|m)\\.so/' $F/lib-regex
w '\x06-e\0malloc+free\0-F\0x.conf\0-S\0-n\0002\0ls' $F/ltrace-cli
w '\x07SIGKILL' $F/numbers
w '\x07arg1>=0x10' $F/cmp

# Trace files.
R=$C/trace_file
cat >$R/record <<'EOF'
{"type":"header","version":1,"tool":"rtrace","command":["sh","-c","ls"],"cwd":"/tmp","start":1700000000}
{"type":"syscall","pid":100,"name":"clone","args":["child_stack=NULL"],"ret":101}
{"type":"syscall","pid":101,"name":"execve","args":["\"/bin/ls\"",["ls"],"0x7ffd"],"ret":0}
{"type":"syscall","pid":101,"name":"write","args":[1,"\"a\\n\"",2],"ret":2}
{"type":"exit","pid":101,"code":0}
{"type":"signal","pid":100,"signal":"SIGCHLD"}
{"type":"exit","pid":100,"code":0}
{"type":"footer","exit_code":0,"elapsed":0.01}
EOF
printf '{"type":"syscall","pid":5,"name":"getpid","ret":5}\n1.2.1\n' >$R/no-header


# A real recording: rstrace --json of a shell that forks, with a header.
RS=${RSTRACE:-$(ls ../target*/release/rstrace /work/target-*/release/rstrace 2>/dev/null | head -1)}
if [ -n "$RS" ]; then
    "$RS" --json -f -o "$tmp/t.json" sh -c '(exit 2); echo hi >/dev/null; exit 3' || true
    { echo '{"type":"header","version":1,"tool":"rtrace","command":["sh"]}'
      grep -v '"mmap"\|"mprotect"\|"newfstatat"' "$tmp/t.json"
      echo '{"type":"footer","exit_code":3,"elapsed":0.01}'; } >$R/rstrace-fork
fi
echo "corpus: $(du -sh $C | cut -f1)"
