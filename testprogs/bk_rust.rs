// rtrace break on Rust paths (tests/debugger/break_langs.rs), built with
// rustc's legacy and v0 symbol manglings: a function in a nested module
// and an inherent method, four calls each.
mod geo {
    pub mod calc {
        #[inline(never)]
        pub fn area(w: u64, h: u64) -> u64 {
            w * h
        }
    }
    pub struct P(pub u64);
    impl P {
        #[inline(never)]
        pub fn len(&self) -> u64 {
            self.0 + 1
        }
    }
}

fn main() {
    let mut t = 0;
    for i in 0..4u64 {
        t += geo::calc::area(i, std::hint::black_box(3));
        t += geo::P(i).len();
    }
    println!("{t}");
}
