//! Unit tests of the btrfs (type 0x94) ioctl decoders over fake memory:
//! write requests at entry, read-write requests with their ` => ` part,
//! `-v` and `-X verbose` forms.

use crate::engine::memory::FakeMemory;
use crate::syscall::ctx::DecodeOpts;
use crate::syscall::ioctl::ioctl;
use crate::syscall::testutil::{run, run_with};

const EBADF: i64 = -9;
const BAD: &str = "-1 EBADF (Bad file descriptor)";
const FD: u64 = -1i64 as u64;

fn put64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

fn put32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

fn verbose() -> DecodeOpts {
    DecodeOpts {
        verbose: true,
        ..DecodeOpts::default()
    }
}

fn xverbose() -> DecodeOpts {
    DecodeOpts {
        xlat_style: 2,
        ..DecodeOpts::default()
    }
}

#[test]
fn vol_args_and_simple_requests() {
    let mut m = FakeMemory::default();
    let mut a = vec![0u8; 4096];
    put64(&mut a, 0, 3);
    a[8..14].copy_from_slice(b"subvol");
    let p = m.put(&a);
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0x5000_9401, p], EBADF, &mut m),
        format!("ioctl(-1, BTRFS_IOC_SNAP_CREATE, {{fd=3, name=\"subvol\"}}) = {BAD}")
    );
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0x5000_9401, 0], EBADF, &mut m),
        format!("ioctl(-1, BTRFS_IOC_SNAP_CREATE, NULL) = {BAD}")
    );
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0x9408, 0], EBADF, &mut m),
        format!("ioctl(-1, BTRFS_IOC_SYNC) = {BAD}")
    );
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0x4004_9421, 2], EBADF, &mut m),
        format!("ioctl(-1, BTRFS_IOC_BALANCE_CTL, BTRFS_BALANCE_CTL_CANCEL) = {BAD}")
    );
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0x4004_9409, 4], EBADF, &mut m),
        format!("ioctl(-1, BTRFS_IOC_CLONE or FICLONE, 4) = {BAD}")
    );
    let n = m.put(&7u64.to_le_bytes());
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0x8008_9418, n], 0, &mut m),
        "ioctl(3, BTRFS_IOC_START_SYNC, [7]) = 0"
    );
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0x8008_9419, n], 0, &mut m),
        "ioctl(3, BTRFS_IOC_SUBVOL_GETFLAGS, BTRFS_SUBVOL_CREATE_ASYNC|BTRFS_SUBVOL_RDONLY|BTRFS_SUBVOL_QGROUP_INHERIT) = 0"
    );
}

#[test]
fn balance_read_write() {
    let mut m = FakeMemory::default();
    let mut a = vec![0u8; 1024];
    put64(&mut a, 0, 0x2); // BTRFS_BALANCE_SYSTEM
    put64(&mut a, 288, 0x10); // sys.profiles = RAID1
    put64(&mut a, 288 + 32, u64::MAX); // sys.pend
    let p = m.put(&a);
    let sys = "sys={profiles=BTRFS_BLOCK_GROUP_RAID1, usage=0, devid=makedev(0, 0), pstart=0, \
               pend=UINT64_MAX, vstart=0, vend=0, target=0, flags=0}";
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0xc400_9420, p], EBADF, &mut m),
        format!("ioctl(-1, BTRFS_IOC_BALANCE_V2, {{flags=BTRFS_BALANCE_SYSTEM, {sys}}}) = {BAD}")
    );
    // A success shows what the kernel wrote back (here: the same bytes).
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc400_9420, p], 0, &mut m),
        format!(
            "ioctl(3, BTRFS_IOC_BALANCE_V2, {{flags=BTRFS_BALANCE_SYSTEM, {sys}}} => \
             {{flags=BTRFS_BALANCE_SYSTEM, state=0, {sys}}}) = 0"
        )
    );
    // A read request prints only at exit, the address after a failure.
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0x8400_9422, p], EBADF, &mut m),
        format!("ioctl(-1, BTRFS_IOC_BALANCE_PROGRESS, {p:#x}) = {BAD}")
    );
}

#[test]
fn defrag_range_styles() {
    let mut m = FakeMemory::default();
    let mut a = vec![0u8; 48];
    put64(&mut a, 8, u64::MAX);
    put64(&mut a, 16, 5);
    put32(&mut a, 24, 4096);
    put32(&mut a, 28, 9);
    let p = m.put(&a);
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0x4030_9410, p], EBADF, &mut m),
        format!(
            "ioctl(-1, BTRFS_IOC_DEFRAG_RANGE, {{start=0, len=UINT64_MAX, \
             flags=BTRFS_DEFRAG_RANGE_COMPRESS|0x4, extent_thresh=4096, \
             compress_type=0x9 /* BTRFS_COMPRESS_??? */}}) = {BAD}"
        )
    );
    assert_eq!(
        run_with(ioctl, "ioctl", &[FD, 0x4030_9410, p], EBADF, &mut m, &xverbose()),
        format!(
            "ioctl(-1, 0x40309410 /* BTRFS_IOC_DEFRAG_RANGE */, {{start=0, \
             len=18446744073709551615 /* UINT64_MAX */, flags=0x5 /* BTRFS_DEFRAG_RANGE_COMPRESS|0x4 */, \
             extent_thresh=4096, compress_type=0x9 /* BTRFS_COMPRESS_??? */}}) = {BAD}"
        )
    );
}

#[test]
fn tree_search_verbose_buffer() {
    let mut m = FakeMemory::default();
    let mut a = vec![0u8; 4096];
    put64(&mut a, 0, 5); // tree_id
    put64(&mut a, 8, 256); // min_objectid
    put64(&mut a, 16, u64::MAX - 255); // max_objectid (LAST_FREE)
    put32(&mut a, 56, 1); // min_type
    put32(&mut a, 60, 0xffff_ffff); // max_type
    put32(&mut a, 64, 2); // nr_items
                          // Two result headers, the first followed by 8 bytes of item data.
    put64(&mut a, 104, 9); // transid
    put64(&mut a, 112, 256); // objectid
    put32(&mut a, 128, 1); // type
    put32(&mut a, 132, 8); // len
    put64(&mut a, 104 + 40 + 8, 6); // second objectid
    let p = m.put(&a);
    let key = "key={tree_id=BTRFS_FS_TREE_OBJECTID, min_offset=0, max_offset=0, \
               min_transid=0, max_transid=0, min_type=BTRFS_INODE_ITEM_KEY, \
               max_type=UINT32_MAX, nr_items=2}";
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xd000_9411, p], 0, &mut m),
        format!("ioctl(3, BTRFS_IOC_TREE_SEARCH, {{{key}}} => {{key={{nr_items=2}}, ...}}) = 0")
    );
    let vkey = "key={tree_id=BTRFS_FS_TREE_OBJECTID, min_objectid=BTRFS_FIRST_FREE_OBJECTID, \
                max_objectid=BTRFS_LAST_FREE_OBJECTID, min_offset=0, max_offset=0, \
                min_transid=0, max_transid=0, min_type=BTRFS_INODE_ITEM_KEY, \
                max_type=UINT32_MAX, nr_items=2}";
    assert_eq!(
        run_with(ioctl, "ioctl", &[3, 0xd000_9411, p], 0, &mut m, &verbose()),
        format!(
            "ioctl(3, BTRFS_IOC_TREE_SEARCH, {{{vkey}}} => {{key={{nr_items=2}}, buf=[\
             {{transid=9, objectid=BTRFS_FIRST_FREE_OBJECTID, offset=0, type=BTRFS_INODE_ITEM_KEY, len=8}}, \
             {{transid=0, objectid=BTRFS_ROOT_TREE_DIR_OBJECTID, offset=0, type=0, len=0}}]}}) = 0"
        )
    );
}

#[test]
fn ino_lookup_keeps_the_zero_tree_id() {
    let mut m = FakeMemory::default();
    let mut a = vec![0u8; 4096];
    put64(&mut a, 8, 256);
    a[16..19].copy_from_slice(b"dir");
    let p = m.put(&a);
    // treeid 0 at entry: the exit shows the id the kernel filled in.
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xd000_9412, p], 0, &mut m),
        "ioctl(3, BTRFS_IOC_INO_LOOKUP, {treeid=0, objectid=BTRFS_FIRST_FREE_OBJECTID} => \
         {treeid=0, name=\"dir\"}) = 0"
    );
    let mut b = a.clone();
    put64(&mut b, 0, 5);
    let q = m.put(&b);
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xd000_9412, q], 0, &mut m),
        "ioctl(3, BTRFS_IOC_INO_LOOKUP, {treeid=BTRFS_FS_TREE_OBJECTID, \
         objectid=BTRFS_FIRST_FREE_OBJECTID} => {name=\"dir\"}) = 0"
    );
}

#[test]
fn dedupe_and_dev_stats() {
    let mut m = FakeMemory::default();
    let mut a = vec![0u8; 24 + 3 * 32];
    put64(&mut a, 0, 1024);
    put64(&mut a, 8, 4096);
    a[16] = 3;
    for i in 0..3 {
        put64(&mut a, 24 + 32 * i, 2);
        put64(&mut a, 24 + 32 * i + 8, 4096 * i as u64);
        put64(&mut a, 24 + 32 * i + 16, 100);
    }
    let p = m.put(&a);
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc018_9436, p], 0, &mut m),
        "ioctl(3, BTRFS_IOC_FILE_EXTENT_SAME or FIDEDUPERANGE, {src_offset=1024, src_length=4096, \
         dest_count=3, info=[{dest_fd=2, dest_offset=0}, {dest_fd=2, dest_offset=4096}, ...]} => \
         {info=[{bytes_deduped=100, status=0}, {bytes_deduped=100, status=0}, ...]}) = 0"
    );
    let mut s = vec![0u8; 1032];
    put64(&mut s, 0, 0x801);
    put64(&mut s, 8, 6);
    put64(&mut s, 24 + 8, 7);
    let q = m.put(&s);
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc408_9434, q], 0, &mut m),
        "ioctl(3, BTRFS_IOC_GET_DEV_STATS, {devid=makedev(0x8, 0x1), nr_items=6, flags=0} => \
         {nr_items=6, flags=0, [[BTRFS_DEV_STAT_WRITE_ERRS] = 0, [BTRFS_DEV_STAT_READ_ERRS] = 7, \
         [BTRFS_DEV_STAT_FLUSH_ERRS] = 0, [BTRFS_DEV_STAT_CORRUPTION_ERRS] = 0, \
         [BTRFS_DEV_STAT_GENERATION_ERRS] = 0, ...]}) = 0"
    );
}

#[test]
fn qgroup_inherit_verbose() {
    let mut m = FakeMemory::default();
    let mut q = vec![0u8; 72 + 16];
    put64(&mut q, 8, 2);
    put64(&mut q, 72, 257);
    put64(&mut q, 80, 258);
    let qp = m.put(&q);
    let mut a = vec![0u8; 4096];
    put64(&mut a, 0, 2);
    put64(&mut a, 16, 4); // BTRFS_SUBVOL_QGROUP_INHERIT
    put64(&mut a, 24, 88);
    put64(&mut a, 32, qp);
    a[56] = b'v';
    let p = m.put(&a);
    let lim = "lim={flags=0, max_rfer=0, max_excl=0, rsv_rfer=0, rsv_excl=0}";
    let head = "fd=2, flags=BTRFS_SUBVOL_QGROUP_INHERIT, size=88, qgroup_inherit={flags=0, \
                num_qgroups=2, num_ref_copies=0, num_excl_copies=0";
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0x5000_9418, p], EBADF, &mut m),
        format!(
            "ioctl(-1, BTRFS_IOC_SUBVOL_CREATE_V2, {{{head}, {lim}, ...}}, name=\"v\"}}) = {BAD}"
        )
    );
    put64(&mut a, 8, 77);
    let p = m.put(&a);
    assert_eq!(
        run_with(ioctl, "ioctl", &[3, 0x5000_9418, p], 0, &mut m, &verbose()),
        format!(
            "ioctl(3, BTRFS_IOC_SUBVOL_CREATE_V2, {{{head}, {lim}, qgroups=[257, 258]}}, \
             name=\"v\"}} => {{transid=77}}) = 0"
        )
    );
}
