// Charts with uPlot (served from its WebJar in the keeper's jar).
import uPlot from '/assets/uplot/uPlot.esm.js';
import { bytes } from './ui.js';

const ZONE_TIME = new Intl.DateTimeFormat(undefined, {
  month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short',
});

function width(container) {
  return Math.max(260, container.clientWidth - 8);
}

function follow(chart, container) {
  const observer = new ResizeObserver(() => chart.setSize({ width: width(container), height: 220 }));
  observer.observe(container);
}

/** Health (0-100) and small files over time, in the browser's time zone. */
export function healthChart(container, samples) {
  const x = samples.map((s) => new Date(s.at).getTime() / 1000);
  const chart = new uPlot(
    {
      width: width(container),
      height: 220,
      scales: { health: { range: [0, 100] }, files: { range: (u, min, max) => [0, Math.max(1, max)] } },
      series: [
        { label: 'time', value: (u, v) => (v === null ? '–' : ZONE_TIME.format(new Date(v * 1000))) },
        { label: 'health (0-100)', scale: 'health', stroke: '#2563eb', width: 2 },
        { label: 'small files', scale: 'files', stroke: '#b45309', width: 1 },
        { label: 'delete files', scale: 'files', stroke: '#b91c1c', width: 1 },
      ],
      axes: [
        {},
        { scale: 'health', label: 'health', size: 50 },
        { scale: 'files', side: 1, label: 'files', size: 60, grid: { show: false } },
      ],
    },
    [x, samples.map((s) => s.health), samples.map((s) => s.small_files), samples.map((s) => s.delete_files)],
    container,
  );
  follow(chart, container);
  return chart;
}

/** Data files by size bucket (powers of two). */
export function sizeHistogram(container, buckets, targetFileSize) {
  const x = buckets.map((b, i) => i);
  const label = (i) => (buckets[i] ? bytes(buckets[i].min_bytes) : '');
  const chart = new uPlot(
    {
      width: width(container),
      height: 220,
      scales: { x: { time: false, range: [-0.5, Math.max(0.5, buckets.length - 0.5)] } },
      series: [
        { label: 'size from', value: (u, v) => (v === null ? '–' : label(v) + ' – ' + bytes(buckets[v].max_bytes)) },
        {
          label: 'data files',
          fill: 'rgba(37, 99, 235, 0.5)',
          stroke: '#2563eb',
          paths: uPlot.paths.bars({ size: [0.8, 80] }),
          points: { show: false },
        },
      ],
      axes: [
        { label: 'file size (target ' + bytes(targetFileSize) + ')', values: (u, ticks) => ticks.map((t) => (Number.isInteger(t) ? label(t) : '')), incrs: [1] },
        { label: 'files', size: 50 },
      ],
    },
    [x, buckets.map((b) => b.files)],
    container,
  );
  follow(chart, container);
  return chart;
}
