//! Raw ring-buffer pages as `trace_pipe_raw` delivers them: the page
//! header (time stamp, commit word, lost-event count), padding, time
//! extends, absolute time stamps and data records, with the page layout
//! itself taken from the input (as `events/header_page` would give it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtrace::kernel::format::{common, read_uint};
use rtrace::kernel::ringbuf::{parse_page, PageLayout};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, page)) = data.split_first() else {
        return;
    };
    let layout = PageLayout {
        commit_size: if sel & 1 == 0 { 8 } else { 4 },
        data_offset: match sel >> 1 {
            0..=63 => 16,
            64..=95 => 12,
            n => usize::from(n),
        },
    };
    let mut last = 0u64;
    let _ = parse_page(page, layout, |ts, rec| {
        last = ts;
        let _ = common(rec);
        let _ = read_uint(rec, rec.len().saturating_sub(8), 8);
    });
    let _ = parse_page(page, PageLayout::default(), |_, rec| {
        let _ = common(rec);
    });
});
