package dev.gate.server;

import dev.gate.domain.Tables;

import dev.gate.rules.LimitKey;
import dev.gate.api.CallClass;
import dev.gate.api.GateException;
import dev.gate.api.LimitStatus;
import dev.gate.api.RuleUse;
import dev.gate.engine.Engine;
import dev.gate.engine.TableUpkeep;
import dev.gate.engine.Tally;
import dev.gate.domain.Grant;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The gate's meters on the server's Micrometer registry (Prometheus text at {@code :9990/prometheus}). Counters and
 * the wait timer move as this instance grants, expires, abandons, joins and turns away ({@link Tally}); the line's
 * gauges (waiting calls, oldest wait, window used, cool-down) are the shared line as this instance last read it
 * ({@link #refresh}), so every instance reports the same values for them.
 *
 * <p>Registered through the registry's own methods ({@code counter}, {@code timer}, {@code gauge}), never through
 * meter builders: WildFly 39's application registry passes only those on to the server's registries (a builder's
 * meter stays in the application's registry, unexported), and drops a timer's buckets. So the wait histogram is
 * kept as cumulative counters per bucket, {@code gate_wait_buckets_total{le=...}}, beside the timer's count, sum
 * and max. Meters are kept here once made: the registry's lookup walks every meter of the name.
 */
final class GateMeters implements Tally {

    private static final Logger LOG = Logger.getLogger(GateMeters.class.getName());

    /** Upper bounds of the wait histogram's buckets, seconds: from a fast-path grant to an hour in the line. */
    static final double[] WAIT_BUCKETS = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600};

    /** A gauge's current value, held here (the registry keeps only a weak reference to it). */
    private static final class Value {
        private volatile double value;
    }

    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, Value> gauges = new ConcurrentHashMap<>();
    private final Map<String, Tags> gaugeTags = new ConcurrentHashMap<>();
    private final BooleanSupplier databaseUp;

    GateMeters(MeterRegistry registry, BooleanSupplier databaseUp) {
        this.registry = registry;
        this.databaseUp = databaseUp;
        registry.gauge("gate.database.up", Tags.empty(), this, m -> m.databaseUp.getAsBoolean() ? 1 : 0);
    }

    @Override
    public void granted(Grant grant) {
        Tags tags = Tags.of("limit", LimitKey.templateOf(grant.limit()), "class", grant.callClass().name());
        counter("gate.grants", tags).increment();
        if (grant.aged()) {
            counter("gate.grants.aged", tags).increment(); // the starvation guard's grants, apart
        }
        Duration waited = Duration.between(grant.enqueuedAt(), grant.grantedAt());
        if (waited.isNegative()) {
            waited = Duration.ZERO;
        }
        timers.computeIfAbsent(key("gate.wait", tags), k -> registry.timer("gate.wait", tags)).record(waited);
        double seconds = waited.toNanos() / 1e9;
        for (double le : WAIT_BUCKETS) {
            if (seconds <= le) {
                counter("gate.wait.buckets", tags.and("le", bound(le))).increment();
            }
        }
        counter("gate.wait.buckets", tags.and("le", "+Inf")).increment();
    }

    @Override
    public void expired(String limit, CallClass callClass, String why) {
        counter("gate.expired", Tags.of("limit", LimitKey.templateOf(limit), "class", callClass.name(), "reason", why)).increment();
    }

    @Override
    public void abandoned(String limit, CallClass callClass) {
        counter("gate.abandoned", Tags.of("limit", LimitKey.templateOf(limit), "class", callClass.name())).increment();
    }

    @Override
    public void dedupeJoined(String limit) {
        counter("gate.dedupe.joins", Tags.of("limit", LimitKey.templateOf(limit))).increment();
    }

    @Override
    public void lineFull(String limit) {
        counter("gate.line.full", Tags.of("limit", LimitKey.templateOf(limit))).increment();
    }

    @Override
    public void turnedAwayPaused() {
        counter("gate.turned.away", Tags.of("reason", "paused")).increment();
    }

    /** Reads the line once and sets the gauges; the gauges of a limit that is gone are removed. */
    void refresh(Engine engine) {
        List<LimitStatus> limits;
        try {
            limits = engine.limits().statusInBackground();
        } catch (GateException e) {
            LOG.log(Level.FINE, "gate meters not refreshed: {0}", e.getMessage());
            return; // the gauges keep their last values; gate_database_up says why
        }
        Set<String> seen = new HashSet<>();
        for (LimitStatus l : limits) {
            for (Map.Entry<String, Long> w : l.getWaiting().entrySet()) {
                Tags tags = Tags.of("limit", l.getName(), "class", w.getKey());
                set(seen, "gate.waiting", tags, w.getValue());
                Long oldestMs = l.getOldestWaitMs().get(w.getKey());
                set(seen, "gate.oldest.wait.seconds", tags, oldestMs == null ? 0 : oldestMs / 1000.0);
            }
            for (RuleUse r : l.getWindows()) {
                Tags rule = Tags.of("limit", l.getName(), "rule", r.getCalls() + "/" + r.getWindowMs() + "ms");
                set(seen, "gate.window.used", rule, r.getUsed());
                set(seen, "gate.window.limit", rule, r.getCalls());
            }
            Tags limit = Tags.of("limit", l.getName());
            set(seen, "gate.paused", limit, l.getPausedUntil() != null ? 1 : 0); // on the database's clock
            set(seen, "gate.cooldown.step", limit, l.getCoolDownStep());
            if (l.getOpenKeys() != null) {
                set(seen, "gate.keys.open", limit, l.getOpenKeys()); // a keyed limit's keys, each a line of its own
            }
            if (l.getEffectiveCalls() != null) {
                set(seen, "gate.effective.calls", limit, l.getEffectiveCalls()); // the adaptive rate in force
            }
        }
        engine.tables().status().ifPresent(t -> tables(seen, t));
        for (String gone : new HashSet<>(gauges.keySet())) {
            if (!seen.contains(gone)) {
                Tags tags = gaugeTags.remove(gone);
                gauges.remove(gone);
                Gauge g = registry.find(gone.substring(0, gone.indexOf('|'))).tags(tags).gauge();
                if (g != null) {
                    registry.remove(g);
                }
            }
        }
    }

    /**
     * The gate's tables as the last upkeep check read them: rows, dead rows, size on disk, whether autovacuum looks
     * after each; and how long the oldest transaction of the database has held vacuum back (0: none).
     */
    private void tables(Set<String> seen, TableUpkeep.Status t) {
        for (Tables.Table table : t.tables().tables()) {
            Tags tags = Tags.of("table", table.care().name());
            set(seen, "gate.table.live.rows", tags, table.care().liveRows());
            set(seen, "gate.table.dead.rows", tags, table.care().deadRows());
            set(seen, "gate.table.size.bytes", tags, table.bytes());
            set(seen, "gate.table.autovacuum", tags, table.care().autovacuumOn() ? 1 : 0);
        }
        set(seen, "gate.vacuum.held.back.seconds", Tags.empty(), t.tables().oldest()
                .map(h -> Math.max(0, java.time.Duration.between(h.since(), t.tables().at()).toMillis() / 1000.0))
                .orElse(0.0));
        set(seen, "gate.self.vacuum", Tags.empty(), t.selfVacuum() ? 1 : 0);
    }

    /** The meters this instance registered, gone with it (a redeployment registers them anew). */
    void close() {
        for (Meter m : List.copyOf(registry.getMeters())) {
            if (m.getId().getName().startsWith("gate.")) {
                registry.remove(m);
            }
        }
    }

    private Counter counter(String name, Tags tags) {
        return counters.computeIfAbsent(key(name, tags), k -> registry.counter(name, tags));
    }

    private void set(Set<String> seen, String name, Tags tags, double value) {
        String key = key(name, tags);
        seen.add(key);
        Value v = gauges.computeIfAbsent(key, k -> {
            Value made = new Value();
            gaugeTags.put(k, tags);
            registry.gauge(name, tags, made, x -> x.value);
            return made;
        });
        v.value = value;
    }

    private static String key(String name, Tags tags) {
        StringBuilder k = new StringBuilder(name).append('|');
        tags.forEach(t -> k.append(t.getKey()).append('=').append(t.getValue()).append(','));
        return k.toString();
    }

    private static String bound(double le) {
        return le == Math.rint(le) ? String.valueOf((long) le) : String.valueOf(le);
    }
}
