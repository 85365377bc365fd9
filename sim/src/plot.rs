//! SVG plots of a [`PaperReport`]'s series, drawn with `plotters`.
//!
//! [`write_plots`] writes four files into a directory:
//!
//! * `goodput_vs_loss.svg`: goodput and the wire limit against the loss rate (a);
//! * `recovery.svg`: drop → completion for each placement of one to three drops (c), per
//!   fabric and per sender (per-EV inference alone, and with tail probes);
//! * `flag_delay.svg`: histogram of the flag delays, per-QP and shared retirement (d);
//! * `skew.svg`: goodput and peak out-of-order depth against skew, round-robin,
//!   skew-aware and window-fit spraying (f).

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::paper::PaperReport;

/// Why a plot could not be written.
#[derive(Debug, thiserror::Error)]
#[error("plot {file}: {reason}")]
pub struct PlotError {
    /// The file.
    pub file: PathBuf,
    /// What went wrong.
    pub reason: String,
}

const SIZE: (u32, u32) = (800, 500);
const COLORS: [RGBColor; 4] =
    [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(44, 160, 44), RGBColor(148, 103, 189)];

/// Writes the four plots into `dir` (created if missing) and returns their paths.
pub fn write_plots(report: &PaperReport, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| PlotError { file: dir.to_path_buf(), reason: e.to_string() })?;
    let mut out = Vec::new();
    type Draw = fn(&PaperReport, &Path) -> Result<(), Box<dyn std::error::Error>>;
    let plots: [(&str, Draw); 4] = [
        ("goodput_vs_loss.svg", goodput_vs_loss),
        ("recovery.svg", recovery),
        ("flag_delay.svg", flag_delay),
        ("skew.svg", skew),
    ];
    for (name, draw) in plots {
        let file = dir.join(name);
        draw(report, &file).map_err(|e| PlotError { file: file.clone(), reason: e.to_string() })?;
        out.push(file);
    }
    Ok(out)
}

type Res = Result<(), Box<dyn std::error::Error>>;

fn max_or(v: impl Iterator<Item = f64>, floor: f64) -> f64 {
    v.fold(floor, f64::max)
}

fn goodput_vs_loss(r: &PaperReport, file: &Path) -> Res {
    let pts = &r.series.goodput_vs_loss;
    let root = SVGBackend::new(file, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let ymax = max_or(pts.iter().map(|p| p.wire_limit_gbps), 1.0) * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption("(a) goodput against random loss, 4 × 100 Gb/s, PMTU 4096", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..10.5f64, 0.0..ymax)?;
    chart.configure_mesh().x_desc("loss on every path, %").y_desc("Gb/s").draw()?;
    let good: Vec<(f64, f64)> = pts.iter().map(|p| (100.0 * p.loss, p.goodput_gbps)).collect();
    let limit: Vec<(f64, f64)> = pts.iter().map(|p| (100.0 * p.loss, p.wire_limit_gbps)).collect();
    chart
        .draw_series(LineSeries::new(good.clone(), COLORS[0].stroke_width(2)))?
        .label("goodput")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], COLORS[0]));
    chart.draw_series(good.iter().map(|&p| Circle::new(p, 4, COLORS[0].filled())))?;
    chart
        .draw_series(LineSeries::new(limit, COLORS[1]))?
        .label("wire limit")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], COLORS[1]));
    chart
        .draw_series(LineSeries::new(vec![(0.0, 380.9), (10.5, 380.9)], COLORS[2]))?
        .label("paper: 380.9 Gb/s (no loss)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], COLORS[2]));
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw()?;
    root.present()?;
    Ok(())
}

fn recovery(r: &PaperReport, file: &Path) -> Res {
    let pts = &r.series.recovery;
    let root = SVGBackend::new(file, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let ymax = max_or(pts.iter().map(|p| p.recovery_ns as f64), 1000.0) * 1.15;
    let mut chart = ChartBuilder::on(&root)
        .caption("(c) drop → completion, idle fabric, one 64 KiB message", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.5..3.5f64, (20.0..ymax).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("packets lost")
        .y_desc("ns (log scale)")
        .x_labels(3)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    // The paper's ranges as bands.
    for (k, lo, hi) in [(1.0, 508.0, 598.0), (2.0, 620.0, 682.0), (3.0, 620.0, 682.0)] {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(k - 0.3, lo), (k + 0.3, hi)],
            COLORS[2].mix(0.4).filled(),
        )))?;
    }
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(1.0, 508.0), (1.0, 508.0)],
            COLORS[2].mix(0.4),
        )))?
        .label("paper: local drop-to-CQE")
        .legend(|(x, y)| {
            Rectangle::new([(x, y - 5), (x + 20, y + 5)], COLORS[2].mix(0.4).filled())
        });
    // One series per fabric and sender, side by side within each count of losses.
    let mut kinds: Vec<(u64, Option<u64>)> =
        pts.iter().map(|p| (p.fabric_delay_ns, p.tail_probe_ns)).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let slot = 0.6 / kinds.len().max(1) as f64;
    for (k, &(delay, tail)) in kinds.iter().enumerate() {
        let set: Vec<_> =
            pts.iter().filter(|p| (p.fabric_delay_ns, p.tail_probe_ns) == (delay, tail)).collect();
        let n = set.len().max(1) as f64;
        let color = COLORS[k % COLORS.len()];
        let fabric = if delay == 0 {
            "NIC-local".to_string()
        } else {
            format!("end to end ({delay} ns paths)")
        };
        let sender = match tail {
            None => "per-EV inference".to_string(),
            Some(t) => format!("tail probes at {t} ns"),
        };
        let x0 = -0.3 + slot * k as f64;
        chart
            .draw_series(set.iter().enumerate().map(|(i, p)| {
                let x = p.psns.len() as f64 + x0 + (i as f64 / n) * slot * 0.8;
                Circle::new((x, p.recovery_ns as f64), 3, color.filled())
            }))?
            .label(format!("ours, {fabric}, {sender}"))
            .legend(move |(x, y)| Circle::new((x + 10, y), 5, color.filled()));
    }
    // Below the paper's bands, where no point falls.
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    root.present()?;
    Ok(())
}

fn flag_delay(r: &PaperReport, file: &Path) -> Res {
    let series = &r.series.flag_delay_ns;
    let root = SVGBackend::new(file, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let max = series.values().flat_map(|v| v.iter().copied()).max().unwrap_or(0).max(200);
    let bin = (max / 40).max(10);
    let nbins = (max / bin + 1) as usize;
    let counts: Vec<Vec<u32>> = series
        .values()
        .map(|v| {
            let mut c = vec![0u32; nbins];
            for &d in v {
                c[((d / bin) as usize).min(nbins - 1)] += 1;
            }
            c
        })
        .collect();
    let ymax = counts.iter().flatten().copied().max().unwrap_or(1).max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption("(d) flag delay: last byte landed → flag landed", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0u64..(nbins as u64 * bin), 0u32..(ymax + ymax / 10 + 1))?;
    chart.configure_mesh().x_desc("ns").y_desc("messages").draw()?;
    for (i, (name, c)) in series.keys().zip(&counts).enumerate() {
        let color = COLORS[i % COLORS.len()];
        let half = bin / 2;
        let off = if i == 0 { 0 } else { half };
        chart
            .draw_series(c.iter().enumerate().filter(|(_, n)| **n > 0).map(|(b, &n)| {
                let x0 = b as u64 * bin + off;
                Rectangle::new([(x0, 0), (x0 + half, n)], color.mix(0.7).filled())
            }))?
            .label(format!("{name} retirement"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], color.filled()));
    }
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw()?;
    root.present()?;
    Ok(())
}

fn skew(r: &PaperReport, file: &Path) -> Res {
    let pts = &r.series.skew;
    let root = SVGBackend::new(file, (800, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(400);
    let xmax = max_or(pts.iter().map(|p| p.skew_ns as f64 / 1000.0), 1.0) * 1.05;
    let mut policies: Vec<&str> = pts.iter().map(|p| p.policy.as_str()).collect();
    policies.dedup();
    let ymax = max_or(pts.iter().map(|p| p.goodput_gbps), 1.0) * 1.15;
    let mut chart = ChartBuilder::on(&top)
        .caption("(f) goodput against the skew of one path of four", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..xmax, 0.0..ymax)?;
    chart.configure_mesh().x_desc("skew of path 3, µs").y_desc("Gb/s").draw()?;
    for (i, pol) in policies.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let line: Vec<(f64, f64)> = pts
            .iter()
            .filter(|p| p.policy == *pol)
            .map(|p| (p.skew_ns as f64 / 1000.0, p.goodput_gbps))
            .collect();
        chart
            .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))?
            .label(pol.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart.draw_series(line.into_iter().map(|p| Circle::new(p, 4, color.filled())))?;
    }
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw()?;

    let window = pts.iter().map(|p| p.window).max().unwrap_or(1);
    let ymax =
        f64::from(pts.iter().map(|p| p.median_ooo_depth).max().unwrap_or(1).max(window)) * 1.15;
    let mut chart = ChartBuilder::on(&bottom)
        .caption("receive-window pressure: median out-of-order depth", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..xmax, 0.0..ymax)?;
    chart.configure_mesh().x_desc("skew of path 3, µs").y_desc("packets").draw()?;
    for (i, pol) in policies.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let line: Vec<(f64, f64)> = pts
            .iter()
            .filter(|p| p.policy == *pol)
            .map(|p| (p.skew_ns as f64 / 1000.0, f64::from(p.median_ooo_depth)))
            .collect();
        chart
            .draw_series(LineSeries::new(line, color.stroke_width(2)))?
            .label(pol.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .draw_series(LineSeries::new(
            vec![(0.0, f64::from(window)), (xmax, f64::from(window))],
            COLORS[3],
        ))?
        .label("receive window")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], COLORS[3]));
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw()?;
    root.present()?;
    Ok(())
}
