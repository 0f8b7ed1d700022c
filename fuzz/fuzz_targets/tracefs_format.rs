//! tracefs `events/*/*/format` files (the layout of every kernel event's
//! record) and the decoding of one record by that layout, plus the
//! `events/header_page` parser. The input is the format text, a NUL byte,
//! then the record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtrace::kernel::format::{common, decode_field, parse_format};
use rtrace::kernel::ringbuf::PageLayout;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (text, record) = data.split_at(split);
    let record = record.get(1..).unwrap_or(&[]);
    let text = String::from_utf8_lossy(text);
    let _ = PageLayout::parse(&text);
    let _ = common(record);
    if let Ok(fmt) = parse_format("fuzz", &text) {
        for f in &fmt.fields {
            let _ = decode_field(f, record);
        }
    }
});
