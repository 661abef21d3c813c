// The last calls' latencies as a small uPlot line: shape at a glance, numbers in the tooltip.
// uPlot draws on a canvas and sets only element styles, which the console's CSP allows.
import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatLatency } from '../../stores/health-store.ts';
import { themeColour } from '../../lib/theme-colour.ts';
import { useThemeStore } from '../../stores/theme-store.ts';

const WIDTH = 72;
const HEIGHT = 22;

function toData(recent: readonly number[]): uPlot.AlignedData {
  return [recent.map((_, i) => i), [...recent]];
}

export function LatencySparkline({ recent }: { recent: readonly number[] }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const drawable = recent.length >= 2;
  // The canvas holds colours, not variables: a new theme draws a new chart.
  const theme = useThemeStore((s) => s.theme);

  useEffect(() => {
    if (!drawable || !host.current) return;
    const stroke = themeColour('--accent', '#5b9dff');
    const fill = themeColour('--accent-bg', 'rgba(91, 157, 255, 0.12)');
    const opts: uPlot.Options = {
      width: WIDTH,
      height: HEIGHT,
      padding: [2, 1, 1, 1],
      legend: { show: false },
      cursor: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: {
        x: { time: false },
        // From zero, so a flat line of fast calls does not look like wild swings.
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [{ show: false }, { show: false }],
      series: [{}, { stroke, fill, width: 1.25, points: { show: false } }],
    };
    const u = new uPlot(opts, [[], []], host.current);
    plot.current = u;
    return () => {
      u.destroy();
      plot.current = null;
    };
  }, [drawable, theme]);

  useEffect(() => {
    plot.current?.setData(toData(recent));
  }, [recent, drawable, theme]);

  const summary = useMemo(() => {
    if (recent.length === 0) return 'No calls yet';
    const max = Math.max(...recent);
    const min = Math.min(...recent);
    const last = recent[recent.length - 1] ?? null;
    return `Last ${recent.length} call${recent.length === 1 ? '' : 's'}: ${formatLatency(min)}–${formatLatency(max)} ms, latest ${formatLatency(last)} ms`;
  }, [recent]);

  return (
    <div className="sparkline" role="img" aria-label={summary} title={summary} data-testid="latency-sparkline" data-points={recent.length}>
      {drawable ? <div ref={host} className="sparkline-plot" /> : <span className="muted">—</span>}
    </div>
  );
}
