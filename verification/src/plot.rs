//! SVG plots for reports (plotters with the SVG backend only, no system fonts).
//!
//! plotters is built without its `ttf` feature; text then goes through plotters' built-in
//! "naive" font, which estimates text extents and lets the SVG backend emit plain `<text>`
//! elements that the viewer renders with its own fonts. No font files are read, so plots render
//! the same on a machine without fontconfig (tested below by looking for the `<text>` of the
//! caption and of every legend entry).

use std::path::Path;

use plotters::prelude::*;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// Polyline with a circle at each point (measured data).
    LinePoints,
    /// Dashed-looking thin polyline without markers (reference slopes).
    Line,
}

/// One series of a log-log plot.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// (x, y) points; non-positive or non-finite points are left out of a log plot.
    pub points: Vec<(f64, f64)>,
    /// How it is drawn.
    pub marker: Marker,
}

/// Why a plot could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// No series has a point that a log axis can show.
    #[error("plot `{0}`: no finite positive points to draw")]
    Empty(String),
    /// plotters failed while drawing.
    #[error("plot `{title}`: drawing failed: {message}")]
    Draw {
        /// Plot title.
        title: String,
        /// The backend's message.
        message: String,
    },
    /// The file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// Target path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A log-log plot, e.g. error against step size for a convergence study.
#[derive(Debug, Clone)]
pub struct LogLogPlot {
    /// Caption.
    pub title: String,
    /// x-axis description.
    pub x_label: String,
    /// y-axis description.
    pub y_label: String,
    /// The series, drawn in order with a fixed palette.
    pub series: Vec<Series>,
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

impl LogLogPlot {
    /// Renders the plot as an SVG document.
    pub fn to_svg(&self) -> Result<String, PlotError> {
        let usable = |&(x, y): &(f64, f64)| x.is_finite() && y.is_finite() && x > 0.0 && y > 0.0;
        let all: Vec<(f64, f64)> =
            self.series.iter().flat_map(|s| s.points.iter().copied().filter(usable)).collect();
        if all.is_empty() {
            return Err(PlotError::Empty(self.title.clone()));
        }
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in &all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        // Pad by a factor so points do not sit on the frame, and give a range to one point.
        let (x0, x1, y0, y1) = (x0 / 1.5, x1 * 1.5, y0 / 3.0, y1 * 3.0);
        let draw_err = |e: &dyn std::fmt::Display| PlotError::Draw {
            title: self.title.clone(),
            message: e.to_string(),
        };
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (720, 480)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| draw_err(&e))?;
            let mut chart = ChartBuilder::on(&root)
                .caption(&self.title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(64)
                .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
                .map_err(|e| draw_err(&e))?;
            chart
                .configure_mesh()
                .x_desc(self.x_label.as_str())
                .y_desc(self.y_label.as_str())
                .x_label_formatter(&|v| format!("{v:.0e}"))
                .y_label_formatter(&|v| format!("{v:.0e}"))
                .draw()
                .map_err(|e| draw_err(&e))?;
            for (k, s) in self.series.iter().enumerate() {
                let color = PALETTE[k % PALETTE.len()];
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(usable).collect();
                let width = if s.marker == Marker::Line { 1 } else { 2 };
                chart
                    .draw_series(LineSeries::new(pts.clone(), color.stroke_width(width)))
                    .map_err(|e| draw_err(&e))?
                    .label(s.label.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                if s.marker == Marker::LinePoints {
                    chart
                        .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                        .map_err(|e| draw_err(&e))?;
                }
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(|e| draw_err(&e))?;
            root.present().map_err(|e| draw_err(&e))?;
        }
        Ok(out)
    }

    /// Renders the plot and writes it to `path` (temporary file and rename).
    pub fn write(&self, path: &Path) -> Result<(), PlotError> {
        let svg = self.to_svg()?;
        signorini_lcp::formats::write_atomic(path, svg.as_bytes()).map_err(|e| PlotError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> LogLogPlot {
        let h: Vec<f64> = (0..6).map(|k| 0.1 / 2f64.powi(k)).collect();
        LogLogPlot {
            title: "order study".into(),
            x_label: "step h".into(),
            y_label: "error".into(),
            series: vec![
                Series {
                    label: "measured".into(),
                    points: h.iter().map(|&x| (x, 2.0 * x)).collect(),
                    marker: Marker::LinePoints,
                },
                Series {
                    label: "slope 1".into(),
                    points: h.iter().map(|&x| (x, x)).collect(),
                    marker: Marker::Line,
                },
            ],
        }
    }

    #[test]
    fn text_renders_without_system_fonts() {
        let svg = example().to_svg().expect("draws");
        assert!(svg.starts_with("<svg"));
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| t.split_once('>').and_then(|(_, rest)| rest.split_once("</text>")))
            .map(|(inner, _)| inner.trim())
            .collect();
        for text in ["order study", "measured", "slope 1", "step h", "error"] {
            assert!(texts.contains(&text), "missing text {text} in {texts:?}");
        }
    }

    #[test]
    fn empty_plot_is_an_error() {
        let mut p = example();
        for s in &mut p.series {
            s.points = vec![(0.0, 1.0), (1.0, f64::NAN)];
        }
        assert!(matches!(p.to_svg(), Err(PlotError::Empty(_))));
    }
}
