//! A line chart drawn on the server as SVG (no script): places over the event's generations, one
//! line per pair, place 1 at the top. Places run from 1 to tens of thousands on a national event,
//! so the scale is logarithmic: the leaders' moves near the top stay readable.
//!
//! Colours are SVG presentation attributes, not `style`: the site's CSP forbids inline style.

use maud::{Markup, html};

/// One line of the chart.
pub(crate) struct Series {
    pub label: String,
    /// (index of the generation on the x axis, place).
    pub points: Vec<(usize, u32)>,
    /// Drawn thicker and darker (the reader's own pair).
    pub highlight: bool,
}

/// Line colours (Tableau 10, distinguishable for most colour vision; each line is also named in
/// the legend and the table below the chart).
const COLOURS: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#b8a000", "#b07aa1", "#ff6f91",
    "#9c755f", "#7f7f7f",
];
const HIGHLIGHT: &str = "#111111";

/// A chart's drawing size: a phone gets a narrower one of its own (its text would otherwise be
/// scaled down with the whole drawing), shown by the stylesheet in place of the wide one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Size {
    pub width: f64,
    pub height: f64,
    pub font: f64,
    /// Class of the `svg` (`wide-chart`, `phone-chart`) and prefix of its ids.
    pub name: &'static str,
}

pub(crate) const WIDE: Size = Size {
    width: 600.0,
    height: 380.0,
    font: 15.0,
    name: "wide-chart",
};
pub(crate) const PHONE: Size = Size {
    width: 340.0,
    height: 320.0,
    font: 13.0,
    name: "phone-chart",
};

const RIGHT: f64 = 14.0;
const TOP: f64 = 14.0;

/// The colour of the `i`-th series.
pub fn colour(i: usize, highlight: bool) -> &'static str {
    if highlight {
        HIGHLIGHT
    } else {
        COLOURS[i % COLOURS.len()]
    }
}

/// Where things go on the chart.
struct Scale {
    columns: usize,
    worst: u32,
    size: Size,
}

impl Scale {
    fn left(&self) -> f64 {
        self.size.font * 3.9
    }

    fn bottom(&self) -> f64 {
        self.size.font * 3.1
    }

    fn x(&self, i: usize) -> f64 {
        let w = self.size.width - self.left() - RIGHT;
        if self.columns <= 1 {
            self.left() + w / 2.0
        } else {
            self.left() + w * i as f64 / (self.columns - 1) as f64
        }
    }

    fn y(&self, place: u32) -> f64 {
        let h = self.size.height - TOP - self.bottom();
        let top = f64::from(self.worst.max(2)).ln();
        TOP + h * f64::from(place.max(1)).ln() / top
    }
}

/// Places marked on the y axis: 1, 2, 5, 10, 20, 50, ... up to `worst`.
fn place_ticks(worst: u32) -> Vec<u32> {
    let mut ticks = Vec::new();
    let mut decade = 1u32;
    'out: loop {
        for m in [1, 2, 5] {
            let t = decade.saturating_mul(m);
            if t > worst {
                break 'out;
            }
            ticks.push(t);
        }
        match decade.checked_mul(10) {
            Some(d) => decade = d,
            None => break,
        }
    }
    ticks
}

/// The chart at `size`: `columns` generations along the bottom.
pub(crate) fn places_chart(
    size: Size,
    title: &str,
    series: &[Series],
    columns: &[i64],
    description: &str,
) -> Markup {
    let worst = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .max()
        .unwrap_or(1);
    let scale = Scale {
        columns: columns.len(),
        worst,
        size,
    };
    let ids = (
        format!("{}-title", size.name),
        format!("{}-desc", size.name),
    );
    html! {
        svg.chart.(size.name) viewBox=(format!("0 0 {} {}", size.width, size.height)) role="img"
            aria-labelledby={ (ids.0) " " (ids.1) } {
            title id=(ids.0) { (title) }
            desc id=(ids.1) { (description) }
            (axes(&scale, columns))
            @for (i, s) in series.iter().enumerate() { (line(&scale, s, colour(i, s.highlight))) }
        }
    }
}

/// The grid, the places and generations marked, the axes' names.
fn axes(scale: &Scale, columns: &[i64]) -> Markup {
    let Size {
        width,
        height,
        font,
        ..
    } = scale.size;
    let (left, bottom) = (scale.left(), scale.bottom());
    let n = columns.len();
    let every = n.div_ceil(if width < 400.0 { 4 } else { 6 }).max(1);
    let x_ticks = (0..n).filter(|i| i % every == 0 || i + 1 == n);
    let middle = TOP + (height - TOP - bottom) / 2.0;
    html! {
        @for t in place_ticks(scale.worst) {
            @let y = format!("{:.1}", scale.y(t));
            line x1=(left) x2=(width - RIGHT) y1=(y) y2=(y) stroke="#d5dce4" stroke-width="1" {}
            text x=(left - 6.0) y=(y) text-anchor="end" dominant-baseline="middle" font-size=(font) fill="#333" { (t) }
        }
        @for i in x_ticks {
            // The last label ends at its point: centred there, it ran past the drawing's edge.
            text x=(format!("{:.1}", scale.x(i))) y=(height - bottom + font * 1.3) text-anchor=(if i + 1 == n && n > 1 { "end" } else { "middle" }) font-size=(font) fill="#333" { (columns[i]) }
        }
        text x=(left + (width - left - RIGHT) / 2.0) y=(height - 5.0) text-anchor="middle" font-size=(font) fill="#333" {
            "Clubs' results applied (generation)"
        }
        text x=(font) y=(middle) text-anchor="middle" font-size=(font) fill="#333"
            transform={ "rotate(-90 " (font) " " (middle) ")" } { "Place" }
    }
}

fn line(scale: &Scale, s: &Series, colour: &str) -> Markup {
    let points: Vec<String> = s
        .points
        .iter()
        .map(|(i, p)| format!("{:.1},{:.1}", scale.x(*i), scale.y(*p)))
        .collect();
    let width = if s.highlight { "4" } else { "2" };
    html! {
        g {
            title { (s.label) }
            @if points.len() > 1 {
                polyline points=(points.join(" ")) fill="none" stroke=(colour) stroke-width=(width) stroke-linejoin="round" {}
            }
            @if let Some((i, p)) = s.points.last() {
                circle cx=(format!("{:.1}", scale.x(*i))) cy=(format!("{:.1}", scale.y(*p))) r="4" fill=(colour) {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_and_scale() {
        assert_eq!(place_ticks(1), vec![1]);
        assert_eq!(place_ticks(60), vec![1, 2, 5, 10, 20, 50]);
        let s = Scale {
            columns: 3,
            worst: 100,
            size: WIDE,
        };
        assert_eq!(s.y(1), TOP);
        assert!((s.y(100) - (WIDE.height - s.bottom())).abs() < 1e-9);
        assert_eq!(s.x(0), s.left());
        assert!((s.x(2) - (WIDE.width - RIGHT)).abs() < 1e-9);
        let one = Scale {
            columns: 1,
            worst: 1,
            size: PHONE,
        };
        assert!(one.x(0) > one.left() && one.y(1).is_finite());
    }

    #[test]
    fn the_last_generation_s_label_ends_at_its_point_inside_the_drawing() {
        let series = [Series {
            label: "Pair 1 NS (Club)".into(),
            points: vec![(0, 3), (1, 2), (2, 1)],
            highlight: false,
        }];
        let svg = places_chart(WIDE, "t", &series, &[78, 4758, 9338], "d").into_string();
        let label = |text: &str| {
            let at = svg.find(&format!(">{text}<")).expect(text);
            svg[..at]
                .rsplit("<text")
                .next()
                .unwrap_or_default()
                .to_string()
        };
        assert!(label("9338").contains(r#"text-anchor="end""#), "{svg}");
        assert!(label("78").contains(r#"text-anchor="middle""#), "{svg}");
    }
}
