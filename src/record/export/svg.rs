//! A small self-contained flamegraph renderer: folded stacks in, one SVG
//! out (root at the bottom, children sorted by name as flamegraph.pl does,
//! widths proportional to weight, a `<title>` tooltip on every frame with
//! its weight and share). No scripts, no external resources.

use std::collections::BTreeMap;
use std::fmt::Write;

const WIDTH: f64 = 1200.0;
const FRAME_H: f64 = 16.0;
const PAD_TOP: f64 = 30.0;
const PAD_SIDE: f64 = 10.0;
/// Frames narrower than this (pixels) are not drawn.
const MIN_WIDTH: f64 = 0.1;

#[derive(Default)]
struct Node {
    value: u64,
    children: BTreeMap<String, Node>,
}

fn depth(n: &Node) -> usize {
    n.children.values().map(depth).max().map_or(0, |d| d + 1)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A warm colour derived from the name (stable across runs).
fn colour(name: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    let r = 205 + (h % 50);
    let g = (h >> 8) % 230;
    let b = (h >> 16) % 55;
    format!("rgb({r},{g},{b})")
}

struct Ctx<'a> {
    out: &'a mut String,
    scale: f64,
    total: u64,
    height: f64,
    unit: &'a str,
}

fn draw(c: &mut Ctx, name: &str, n: &Node, x: f64, level: usize) {
    let w = n.value as f64 * c.scale;
    if w < MIN_WIDTH {
        return;
    }
    let y = c.height - PAD_SIDE - (level as f64 + 1.0) * FRAME_H;
    let pct = 100.0 * n.value as f64 / c.total.max(1) as f64;
    let label = escape(name);
    let _ = write!(
        c.out,
        "<g><title>{label} ({} {}, {pct:.2}%)</title><rect x=\"{x:.2}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{:.1}\" fill=\"{}\" rx=\"2\"/>",
        n.value,
        c.unit,
        FRAME_H - 1.0,
        colour(name)
    );
    let chars = ((w - 6.0) / 7.0).floor();
    if chars >= 3.0 {
        let chars = chars as usize;
        let text: String = if name.chars().count() > chars {
            name.chars()
                .take(chars.saturating_sub(2))
                .collect::<String>()
                + ".."
        } else {
            name.to_string()
        };
        let _ = write!(
            c.out,
            "<text x=\"{:.2}\" y=\"{:.1}\">{}</text>",
            x + 3.0,
            y + FRAME_H - 4.5,
            escape(&text)
        );
    }
    c.out.push_str("</g>\n");
    let mut cx = x;
    for (child, node) in &n.children {
        draw(c, child, node, cx, level + 1);
        cx += node.value as f64 * c.scale;
    }
}

/// Renders folded stacks (`stack -> weight`) as an SVG flamegraph titled
/// `title`; `unit` names the weight (`calls`, `ns`).
pub fn flamegraph(stacks: &BTreeMap<String, u64>, title: &str, unit: &str) -> String {
    let mut root = Node::default();
    for (stack, &w) in stacks {
        root.value += w;
        let mut n = &mut root;
        for f in stack.split(';') {
            n = n.children.entry(f.to_string()).or_default();
            n.value += w;
        }
    }
    let levels = depth(&root) + 1;
    let height = PAD_TOP + levels as f64 * FRAME_H + 2.0 * PAD_SIDE;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\">"
    );
    let _ = writeln!(
        out,
        "<style>text {{ font-family: monospace; font-size: 12px; fill: #000; }} .title {{ font-size: 17px; }}</style>\n<rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{height}\" fill=\"#f8f8f0\"/>\n<text class=\"title\" x=\"{}\" y=\"22\" text-anchor=\"middle\">{}</text>",
        WIDTH / 2.0,
        escape(title)
    );
    let mut c = Ctx {
        out: &mut out,
        scale: (WIDTH - 2.0 * PAD_SIDE) / root.value.max(1) as f64,
        total: root.value,
        height,
        unit,
    };
    draw(&mut c, "all", &root, PAD_SIDE, 0);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_widths_and_escaping() {
        let mut s = BTreeMap::new();
        s.insert("prog;main;write".to_string(), 3);
        s.insert("prog;main;<read>".to_string(), 1);
        let svg = flamegraph(&s, "t & t", "calls");
        assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(
            svg.matches("<rect").count(),
            1 + 5,
            "background + all, prog, main, read, write"
        );
        assert!(svg.contains("<title>write (3 calls, 75.00%)</title>"));
        assert!(svg.contains("&lt;read&gt;") && svg.contains("t &amp; t"));
        // Widths: all = 1180 px, write = 3/4 of it.
        assert!(svg.contains("width=\"1180.00\"") && svg.contains("width=\"885.00\""));
    }
}
