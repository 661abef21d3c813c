// One plugin's last hour as a small uPlot chart: calls and failed calls a minute (bars) and the
// mean latency (a line on its own scale), with the breaker's worst state of each minute as a
// strip under it. Numbers are in the label; the chart is the shape at a glance.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { HealthMinuteView } from '../../../../shared/contract.ts';
import { themeColour } from '../../lib/theme-colour.ts';
import { useThemeStore } from '../../stores/theme-store.ts';
import { breakerLabel } from '../../stores/health-store.ts';

const HEIGHT = 44;

function toData(hour: readonly HealthMinuteView[]): uPlot.AlignedData {
  return [hour.map((b) => b.at / 1000), hour.map((b) => b.calls), hour.map((b) => b.errors), hour.map((b) => b.meanMs)];
}

export function HistoryChart({ hour, label }: { hour: readonly HealthMinuteView[]; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  // The canvas holds colours, not variables: a new theme draws a new chart.
  const theme = useThemeStore((s) => s.theme);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const bars = uPlot.paths.bars!({ size: [0.8, 6] });
    const opts: uPlot.Options = {
      width: Math.max(120, el.clientWidth),
      height: HEIGHT,
      padding: [2, 0, 0, 0],
      legend: { show: false },
      cursor: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: {
        x: { time: false },
        // Calls and failures share a scale from zero, so failures read as a share of the calls.
        n: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        ms: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] },
      },
      axes: [{ show: false }, { show: false, scale: 'n' }],
      series: [
        {},
        { scale: 'n', stroke: themeColour('--accent', '#5b9dff'), fill: themeColour('--accent-bg', 'rgba(91, 157, 255, 0.12)'), width: 1, paths: bars, points: { show: false } },
        { scale: 'n', stroke: themeColour('--danger', '#f0625d'), fill: themeColour('--danger', '#f0625d'), width: 1, paths: bars, points: { show: false } },
        { scale: 'ms', stroke: themeColour('--warn', '#d9a33c'), width: 1.25, spanGaps: false, points: { show: false } },
      ],
    };
    const u = new uPlot(opts, [[], [], [], []], el);
    plot.current = u;
    // The card's width follows the window: the chart follows the card.
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(120, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [theme]);

  useEffect(() => {
    plot.current?.setData(toData(hour));
  }, [hour, theme]);

  return (
    <div className="history-chart" role="img" aria-label={label} title={label}>
      <div ref={host} className="history-plot" data-testid="history-plot" />
      <div className="history-breaker" data-testid="history-breaker" aria-hidden="true">
        {hour.map((b) => (
          <span key={b.at} className="history-breaker-minute" data-breaker={b.breaker} title={`${new Date(b.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}: ${breakerLabel[b.breaker]}`} />
        ))}
      </div>
    </div>
  );
}
