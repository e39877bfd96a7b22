import { Inject, Injectable } from '@nestjs/common';
import { fastPaths, type MediaEngine } from '@radiobroadcaster/sfu';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { EventBus } from '../events/event-bus.js';
import { MEDIA_ENGINE } from '../media/media.providers.js';

/** Prometheus metrics of this node. No station ids as labels: cardinality stays fixed. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly joins: Counter<'result'>;
  readonly joinLatency: Histogram;
  readonly iceFailures: Counter;
  /** HTTP stream listeners (`/listen/…`) connected to this node. */
  readonly httpListeners = {
    count: 0,
    inc() {
      this.count++;
    },
    dec() {
      this.count--;
    },
  };

  /** MP3 encoders for the HTTP stream running on this node (one per station with MP3 listeners). */
  readonly httpMp3Encoders = { count: 0 };

  constructor(@Inject(MEDIA_ENGINE) engine: MediaEngine, @Inject(EventBus) bus: EventBus) {
    collectDefaultMetrics({ register: this.registry, prefix: 'rb_' });
    this.joins = new Counter({
      name: 'rb_listener_joins_total',
      help: 'Listener session attempts (WHEP), by result',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.joinLatency = new Histogram({
      name: 'rb_listener_join_seconds',
      help: 'Time to answer a listener offer (SDP in to SDP out)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    this.iceFailures = new Counter({
      name: 'rb_ice_failures_total',
      help: 'Sessions dropped because ICE/DTLS failed or consent expired',
      registers: [this.registry],
    });
    const paths = fastPaths();
    const fastPath = new Gauge({
      name: 'rb_sfu_fast_path',
      help: 'Whether a fast path into werift/Node internals is active (1) or fell back (0)',
      labelNames: ['path'],
      registers: [this.registry],
    });
    fastPath.set({ path: 'udp_handle_send' }, paths.udpHandleSend ? 1 : 0);
    fastPath.set({ path: 'udp_sync_lookup' }, paths.udpSyncLookup ? 1 : 0);
    fastPath.set({ path: 'werift_patches' }, paths.weriftPatches ? 1 : 0);
    new Gauge({
      name: 'rb_live_stations',
      help: 'Stations with a publisher on this node',
      registers: [this.registry],
      collect() {
        this.set(engine.stats().publishers);
      },
    });
    new Gauge({
      name: 'rb_listeners',
      help: 'Connected listeners on this node',
      registers: [this.registry],
      collect() {
        this.set(engine.stats().listeners);
      },
    });
    new Gauge({
      name: 'rb_sfu_listener_capacity',
      help: 'Listeners the SFU admits now: what its shards are measured to hold on this machine, capped by SFU_MAX_LISTENERS (-1: no limit)',
      registers: [this.registry],
      collect() {
        this.set(engine.stats().maxListeners ?? -1);
      },
    });
    const http = this.httpListeners;
    new Gauge({
      name: 'rb_listeners_by_transport',
      help: 'Connected listeners on this node by transport: webrtc (SFU) and http (/listen stream)',
      labelNames: ['transport'],
      registers: [this.registry],
      collect() {
        this.set({ transport: 'webrtc' }, engine.stats().listeners);
        this.set({ transport: 'http' }, http.count);
      },
    });
    const mp3 = this.httpMp3Encoders;
    new Gauge({
      name: 'rb_http_mp3_encoders',
      help: 'MP3 encoders on this node for the HTTP stream (/listen/….mp3), one per station with MP3 listeners',
      registers: [this.registry],
      collect() {
        this.set(mp3.count);
      },
    });
    // Embedded, the SFU is one node: this process.
    const cluster = () => engine.clusterInfo?.() ?? null;
    new Gauge({
      name: 'rb_sfu_node_listeners',
      help: 'Connected listeners per SFU node (node id label; "embedded" when the SFU runs in this process)',
      labelNames: ['node'],
      registers: [this.registry],
      collect() {
        this.reset();
        const info = cluster();
        if (!info) this.set({ node: 'embedded' }, engine.stats().listeners);
        else for (const n of info.nodes) this.set({ node: n.id }, n.listeners);
      },
    });
    new Gauge({
      name: 'rb_sfu_nodes',
      help: 'Live SFU nodes (registered in Redis; 1 when embedded)',
      registers: [this.registry],
      collect() {
        this.set(cluster()?.nodes.length ?? 1);
      },
    });
    new Gauge({
      name: 'rb_cluster_leader',
      help: 'Cluster mode: 1 on the API node that aggregates listener counts and adopts orphaned stations',
      registers: [this.registry],
      collect() {
        this.set(cluster()?.leader ? 1 : 0);
      },
    });
    new Gauge({
      name: 'rb_relay_legs',
      help: 'Origin-to-edge relay legs across the SFU nodes (stations pulled by a node that is not their origin)',
      registers: [this.registry],
      collect() {
        this.set(cluster()?.relays ?? 0);
      },
    });
    new Gauge({
      name: 'rb_event_bus_reconnects',
      help: 'Times the event bus lost and regained its broker',
      registers: [this.registry],
      collect() {
        this.set(bus.reconnects);
      },
    });
    engine.on((e) => {
      if (e.type === 'listener-gone' && /ice|dtls|consent|fail/i.test(e.reason))
        this.iceFailures.inc();
      if (e.type === 'publisher-gone' && e.reason === 'ice-failed') this.iceFailures.inc();
    });
  }
}
