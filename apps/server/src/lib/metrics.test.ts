import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.ts';

describe('Metrics: the request histogram', () => {
  it('scrapes exactly as prom-client’s own Histogram with the same observations', async () => {
    const metrics = new Metrics();
    const reference = new Registry();
    const histogram = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by route (the route pattern, "unmatched" for 404s), method and status, with latency',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [reference],
    });
    // Bounds themselves (a bucket is "less or equal"), between them, past the last, and a label
    // value that must be escaped.
    const seen: [string, string, number, number][] = [
      ['GET', '/api/user/me', 200, 0.0004],
      ['GET', '/api/user/me', 200, 0.001],
      ['GET', '/api/user/me', 200, 0.0011],
      ['GET', '/api/user/me', 401, 0.02],
      ['POST', '/api/shop/buy', 200, 0.25],
      ['POST', '/api/shop/buy', 409, 12],
      ['GET', 'unmatched', 404, 0.003],
      ['GET', '/api/odd"\\route', 200, 10],
    ];
    for (const [method, route, status, seconds] of seen) {
      metrics.request(method, route, status, seconds);
      histogram.observe({ method, route, status: String(status) }, seconds);
    }
    const ours = (await metrics.scrape()).body;
    const theirs = await reference.metrics();
    const requestLines = (text: string) => text.split('\n').filter((line) => line.includes('http_request_duration_seconds'));
    // Six series of 12 bounds, +Inf, sum and count each, under their HELP and TYPE lines.
    expect(requestLines(ours)).toHaveLength(6 * 15 + 2);
    expect(requestLines(ours)).toEqual(requestLines(theirs));
  });
});
