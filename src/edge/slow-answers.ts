// A warning line for every answer slower than SLOW_ANSWER_MS, so a stall shows where it happened.
import type { Handler } from './log.ts';

/** Answers slower than this are reported with their method, path, status and time. */
export const SLOW_ANSWER_MS = 2000;

/** Wraps a handler so an answer that takes longer than `slowMs` (or never comes) is reported. */
export function reportingSlowAnswers(
  handler: Handler,
  { slowMs = SLOW_ANSWER_MS, report }: { slowMs?: number; report: (line: string) => void },
): Handler {
  return (req, res) => {
    const started = performance.now();
    res.once('close', () => {
      const ms = Math.round(performance.now() - started);
      if (ms < slowMs) return;
      const path = (req.url ?? '').split('?')[0];
      const outcome = res.writableFinished ? String(res.statusCode) : 'closed before answering';
      report(`[aurelia] slow answer: ${req.method} ${path} ${outcome} after ${ms} ms`);
    });
    return handler(req, res);
  };
}
