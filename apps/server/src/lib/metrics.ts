import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds; from a fast cached answer (well under a millisecond) to a slow purchase or upload. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; a background pass: a mail batch, a delivery drain, a monitor sweep (deadline + a little). */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface GaugeSpec<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Called on every scrape: the current values, read from the database or from memory. */
  read(): Promise<{ labels?: Partial<Record<L, string>>; value: number }[]>;
}

interface Series {
  labels: { method: string; route: string; status: string };
  /** Answers per latency bucket (not cumulative); the last one is over the largest bound. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * http_request_duration_seconds, counted by hand: prom-client's Histogram builds a label object
 * and a key string and checks the labels on every observation (a few microseconds; a replayed
 * `/me` takes about forty), and this runs for every request the site answers. What a
 * scrape shows is exactly prom-client's histogram: get() returns its shape, the registry formats it.
 */
class RequestHistogram {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'HTTP requests by route (the route pattern, "unmatched" for 404s), method and status, with latency';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** route → method → status → series: three lookups by strings the caller already holds, no key built. */
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = {
        labels: { method, route, status: String(status) },
        counts: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byStatus.set(status, series);
    }
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  get() {
    const values: { labels: Record<string, string | number>; sharedLabels: Series['labels']; value: number; metricName: string }[] = [];
    for (const byMethod of this.series.values())
      for (const byStatus of byMethod.values())
        for (const series of byStatus.values()) {
          let cumulative = 0;
          LATENCY_BUCKETS.forEach((le, i) => {
            cumulative += series.counts[i]!;
            values.push({ labels: { le }, sharedLabels: series.labels, value: cumulative, metricName: `${this.name}_bucket` });
          });
          values.push({ labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_bucket` });
          values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` });
          values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` });
        }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}

/**
 * This process's Prometheus metrics (prom-client), one registry per app (tests build many).
 * The request and job figures are counted as they happen; queue depths and states are gauges
 * that features register with gauge() and that are read from the database on each scrape.
 * Process metrics (CPU, memory, heap, event-loop lag, GC) start with the first scrape, so a site
 * nobody scrapes pays nothing for them.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new RequestHistogram();
  private readonly jobDuration: Histogram<'job'>;
  private readonly jobFailures: Counter<'job'>;
  private readonly jobLast: Gauge<'job'>;
  private processMetrics = false;

  constructor() {
    // The registry takes any object that answers get() the way prom-client's own metrics do.
    this.registry.registerMetric(this.requests as unknown as Histogram);
    this.jobDuration = new Histogram({
      name: 'kubik_job_duration_seconds',
      help: 'Background job passes (servers.monitor is one monitor sweep) by job, with duration',
      labelNames: ['job'],
      buckets: JOB_BUCKETS,
      registers: [this.registry],
    });
    this.jobFailures = new Counter({
      name: 'kubik_job_failures_total',
      help: 'Background job passes that threw, by job',
      labelNames: ['job'],
      registers: [this.registry],
    });
    this.jobLast = new Gauge({
      name: 'kubik_job_last_duration_seconds',
      help: 'Duration of the last finished pass, by job',
      labelNames: ['job'],
      registers: [this.registry],
    });
  }

  /** One answered request; `route` is the route's pattern (bounded), never the raw URL. */
  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  /** One finished background pass (JobRunner's onPass). */
  job(name: string, ms: number, ok: boolean): void {
    this.jobDuration.labels({ job: name }).observe(ms / 1000);
    this.jobLast.labels({ job: name }).set(ms / 1000);
    if (!ok) this.jobFailures.labels({ job: name }).inc();
    else this.jobFailures.labels({ job: name }).inc(0);
  }

  /** A gauge read on every scrape. A reader that throws leaves the gauge empty for that scrape. */
  gauge<L extends string>(spec: GaugeSpec<L>): void {
    const read = spec.read;
    new Gauge<L>({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [this.registry],
      async collect() {
        this.reset();
        let values: Awaited<ReturnType<typeof read>>;
        try {
          values = await read();
        } catch {
          return; // the database is down: /readyz says so; the rest of the scrape still answers
        }
        for (const { labels, value } of values) {
          if (labels) this.set(labels, value);
          else this.set(value);
        }
      },
    });
  }

  /**
   * A counter whose value lives elsewhere (a connection's error count), read on every scrape;
   * read returns the running totals, which only grow.
   */
  counter<L extends string>(spec: Omit<GaugeSpec<L>, 'read'> & { read(): { labels?: Partial<Record<L, string>>; value: number }[] }): void {
    const read = spec.read;
    new Counter<L>({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { labels, value } of read()) {
          if (labels) this.inc(labels, value);
          else this.inc(value);
        }
      },
    });
  }

  /** The text exposition format. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    if (!this.processMetrics) {
      this.processMetrics = true;
      collectDefaultMetrics({ register: this.registry });
      // prom-client's sums of nodejs_active_{handles,requests,resources} are gauges named like
      // counters (…_total), which `promtool check metrics` rejects; the per-type gauges stay, so
      // the sum is sum(nodejs_active_handles).
      for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
        this.registry.removeSingleMetric(name);
    }
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
