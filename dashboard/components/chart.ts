import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { useEffect, useRef } from "preact/hooks";
import { html } from "../lib/html.ts";

export interface Series {
  label: string;
  color: string;
  values: (number | null)[];
  format?: (value: number) => string;
}

/**
 * A time series chart (uPlot) over bucket start times. Labels are the dashboard's own strings;
 * uPlot draws on a canvas and writes its legend as text.
 */
export function Chart({ title, times, series, height = 180 }: { title: string; times: number[]; series: Series[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const format = series[0]?.format ?? ((value: number) => value.toLocaleString());
    const plot = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height,
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        // Counts, cost, latency and rates start at zero; an all-zero series still gets a scale.
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          { stroke: "#5b6472", grid: { stroke: "#eceff3" }, ticks: { stroke: "#eceff3" } },
          { stroke: "#5b6472", grid: { stroke: "#eceff3" }, ticks: { stroke: "#eceff3" }, size: 64, values: (_u, values) => values.map((value) => format(value)) },
        ],
        series: [
          {},
          ...series.map((line) => ({
            label: line.label,
            stroke: line.color,
            width: 2,
            fill: series.length === 1 ? `${line.color}22` : undefined,
            // Percentiles are null in empty buckets: their few values show as points, not an invisible line.
            points: { show: line.values.includes(null) },
            spanGaps: true,
            value: (_u: uPlot, value: number | null) => (value === null ? "—" : (line.format ?? format)(value)),
          })),
        ],
      },
      [times, ...series.map((line) => line.values)] as uPlot.AlignedData,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, element.clientWidth), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, height]);
  return html`<figure class="chart" aria-label=${title}><figcaption>${title}</figcaption><div ref=${box} class="chart-box" data-testid=${`chart-${title.toLowerCase().replace(/\W+/g, "-")}`}></div></figure>`;
}
