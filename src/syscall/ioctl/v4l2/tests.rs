//! Unit tests of the V4L2 ioctl decoders over fake memory: entry-only,
//! exit-only and `{before} => {after}` structures, pixel formats, control
//! ids and the `-X` styles.

use crate::engine::memory::FakeMemory;
use crate::syscall::ioctl::ioctl;
use crate::syscall::testutil::{run, run_changed, run_with, Env};
use crate::syscall::DecodeOpts;

/// Little-endian 32-bit words as bytes.
fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn inputs_and_null() {
    let mut m = FakeMemory::default();
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc050_561a, 0], -9, &mut m),
        "ioctl(3, VIDIOC_ENUMINPUT, NULL) = -1 EBADF (Bad file descriptor)"
    );
    let mut inp = vec![0u8; 80];
    inp[0] = 1;
    inp[4..7].copy_from_slice(b"cam");
    inp[36] = 2;
    let p = m.put(&inp);
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc050_561a, p], 0, &mut m),
        "ioctl(3, VIDIOC_ENUMINPUT, {index=1, name=\"cam\", type=V4L2_INPUT_TYPE_CAMERA}) = 0"
    );
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc050_561a, p], -9, &mut m),
        "ioctl(3, VIDIOC_ENUMINPUT, {index=1}) = -1 EBADF (Bad file descriptor)"
    );
}

#[test]
fn format_pix_changed_and_failed() {
    let mut m = FakeMemory::default();
    let mut f = vec![0u8; 208];
    f[0] = 2; // V4L2_BUF_TYPE_VIDEO_OUTPUT
    f[8..16].copy_from_slice(&words(&[640, 480]));
    f[16..20].copy_from_slice(b"S508");
    f[20..24].copy_from_slice(&words(&[1]));
    f[32..36].copy_from_slice(&words(&[7]));
    let p = m.put(&f);
    let pix = "fmt.pix={width=640, height=480, pixelformat=v4l2_fourcc('S', '5', '0', '8') \
               /* V4L2_PIX_FMT_SPCA508 */, field=V4L2_FIELD_NONE, bytesperline=0, \
               sizeimage=0, colorspace=V4L2_COLORSPACE_JPEG}";
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc0d0_5605, p], 0, &mut m),
        format!(
            "ioctl(3, VIDIOC_S_FMT, {{type=V4L2_BUF_TYPE_VIDEO_OUTPUT, {pix}}} => {{{pix}}}) = 0"
        )
    );
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc0d0_5604, p], -9, &mut m),
        "ioctl(3, VIDIOC_G_FMT, {type=V4L2_BUF_TYPE_VIDEO_OUTPUT}) = -1 EBADF (Bad file descriptor)"
    );
    let raw = DecodeOpts {
        xlat_style: 1,
        ..DecodeOpts::default()
    };
    assert_eq!(
        run_with(ioctl, "ioctl", &[3, 0xc0d0_5640, p], -9, &mut m, &raw),
        "ioctl(3, 0xc0d05640, {type=0x2, fmt.pix={width=640, height=480, pixelformat=0x38303553, \
         field=0x1, bytesperline=0, sizeimage=0, colorspace=0x7}}) = -1 EBADF (Bad file descriptor)"
    );
}

#[test]
fn buffer_flags_and_timestamp() {
    let mut m = FakeMemory::default();
    let mut b = vec![0u8; 88];
    b[0..16].copy_from_slice(&words(&[5, 1, 100, 0x2001]));
    b[24..32].copy_from_slice(&7u64.to_le_bytes());
    b[32..40].copy_from_slice(&9u64.to_le_bytes());
    b[60..68].copy_from_slice(&words(&[1, 0x1000]));
    b[72..76].copy_from_slice(&words(&[4096]));
    let p = m.put(&b);
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc058_5611, p], 0, &mut m),
        "ioctl(3, VIDIOC_DQBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=5, \
         memory=V4L2_MEMORY_MMAP, m.offset=0x1000, length=4096, bytesused=100, \
         flags=V4L2_BUF_FLAG_MAPPED|V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC|V4L2_BUF_FLAG_TSTAMP_SRC_EOF, \
         timestamp={tv_sec=7, tv_usec=9}, ...}) = 0"
    );
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc058_5611, p], -9, &mut m),
        "ioctl(3, VIDIOC_DQBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 EBADF (Bad file descriptor)"
    );
}

#[test]
fn control_ids() {
    let mut m = FakeMemory::default();
    let p = m.put(&words(&[0x00a3_1234, 1]));
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc008_561c, p], 0, &mut m),
        "ioctl(3, VIDIOC_S_CTRL, {id=V4L2_CTRL_CLASS_DETECT+0x1234, value=1 => 1}) = 0"
    );
    let verbose = DecodeOpts {
        xlat_style: 2,
        ..DecodeOpts::default()
    };
    let q = m.put(&words(&[0xbfbe_bdbc; 17]));
    assert_eq!(
        run_with(ioctl, "ioctl", &[3, 0xc044_5624, q], -9, &mut m, &verbose),
        "ioctl(3, 0xc0445624 /* VIDIOC_QUERYCTRL */, {id=0x80000000 /* V4L2_CTRL_FLAG_NEXT_CTRL */\
         |0x3fbebdbc /* V4L2_CID_??? */}) = -1 EBADF (Bad file descriptor)"
    );
    let mut qc = words(&[0x0098_0902, 1]);
    qc.extend_from_slice(b"Saturation");
    qc.resize(68, 0);
    let q = m.put(&qc);
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc044_5624, q], 0, &mut m),
        "ioctl(3, VIDIOC_QUERYCTRL, {id=V4L2_CID_SATURATION, type=V4L2_CTRL_TYPE_INTEGER, \
         name=\"Saturation\", ...}) = 0"
    );
    // Asked for the control after SATURATION; the kernel answered HUE.
    let mut asked = words(&[0x8098_0902]);
    asked.resize(68, 0);
    let mut answer = words(&[0x0098_0903, 1]);
    answer.extend_from_slice(b"Hue");
    answer.resize(68, 0);
    let (mut before, mut after) = (FakeMemory::default(), FakeMemory::default());
    let (q, q2) = (before.put(&asked), after.put(&answer));
    assert_eq!(q, q2);
    assert_eq!(
        run_changed(
            ioctl,
            "ioctl",
            &[3, 0xc044_5624, q],
            0,
            &mut before,
            &mut after,
            &Env::default()
        ),
        "ioctl(3, VIDIOC_QUERYCTRL, {id=V4L2_CTRL_FLAG_NEXT_CTRL|V4L2_CID_SATURATION => \
         V4L2_CID_HUE, type=V4L2_CTRL_TYPE_INTEGER, name=\"Hue\", ...}) = 0"
    );
}

#[test]
fn ext_controls_and_create_bufs() {
    let mut m = FakeMemory::default();
    let mut ctl = words(&[0x0098_0900, 0, 0]);
    ctl.extend_from_slice(&(-2i64).to_le_bytes());
    let arr = m.put(&ctl);
    let mut ec = words(&[0x0099_0000, 1, 7, 0, 0, 0]);
    ec.extend_from_slice(&arr.to_le_bytes());
    let p = m.put(&ec);
    let ctls = "controls=[{id=V4L2_CID_BRIGHTNESS, size=0, value=-2, value64=-2}]";
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc020_5648, p], -9, &mut m),
        format!(
            "ioctl(3, VIDIOC_S_EXT_CTRLS, {{ctrl_class=V4L2_CTRL_CLASS_CODEC, count=1, {ctls}}} \
             => {{{ctls}, error_idx=7}}) = -1 EBADF (Bad file descriptor)"
        )
    );
    let mut cb = words(&[3, 2, 1, 0, 13, 0]);
    cb.extend_from_slice(b"VIVD");
    cb.extend_from_slice(&words(&[10]));
    cb.resize(256, 0);
    let p = m.put(&cb);
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc100_565c, p], 0, &mut m),
        "ioctl(3, VIDIOC_CREATE_BUFS, {count=2, memory=V4L2_MEMORY_MMAP, \
         format={type=V4L2_BUF_TYPE_META_CAPTURE, fmt.meta={dataformat=v4l2_fourcc('V', 'I', 'V', 'D') \
         /* V4L2_META_FMT_VIVID */, buffersize=10}}}) = 0 ({index=3, count=2})"
    );
}
