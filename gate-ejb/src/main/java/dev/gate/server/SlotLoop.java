package dev.gate.server;

import dev.gate.api.GateException;
import dev.gate.engine.Engine;
import dev.gate.engine.EngineSettings;
import dev.gate.engine.InstanceName;
import dev.gate.rules.LimitDeclarations;
import dev.gate.rules.Pace;
import dev.gate.rules.Span;
import dev.gate.rules.TableCare;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import dev.gate.engine.Tally;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import javax.sql.DataSource;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Hosts this server's gate instance ({@link Engine}) once the schema is up to date: its slot loop, lease heartbeat
 * and waiter poll run on the container's {@link ManagedScheduledExecutorService}, its grant listener on a thread of
 * the container's {@link ManagedThreadFactory}. Declares the limits of {@code gate.limits} first.
 */
@Singleton
@Startup
@DependsOn("Schema")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN) // the engine is thread-safe; no container lock needed
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // each step is its own short local transaction
public class SlotLoop {

    private static final Logger LOG = Logger.getLogger(SlotLoop.class.getName());

    /** How often the line's gauges are read from the database (every instance reads the shared line). */
    static final java.time.Duration METERS_EVERY = java.time.Duration.ofSeconds(5);

    @Resource(lookup = GateDataSource.ENGINE_JNDI)
    DataSource dataSource;

    @Resource
    ManagedScheduledExecutorService scheduler;

    @Resource
    ManagedThreadFactory threads;

    // The server's Micrometer registry (its micrometer subsystem); absent on a server without it: no meters then.
    @Inject
    Instance<MeterRegistry> registry;

    private Engine engine;
    private GateMeters meters;
    private ScheduledFuture<?> metersRefresh;

    @PostConstruct
    void start() {
        Config config = ConfigProvider.getConfig();
        // the same values the datasource's pool size expression reads (gate-ear/src/main/wildfly/gate.cli)
        int poolSize = config.getOptionalValue("gate.db.pool.max", Integer.class).orElse(20);
        int callers = config.getOptionalValue("gate.callers.max-in-flight", Integer.class)
                .orElse(EngineSettings.DEFAULT_CALLER_CONCURRENCY);
        // finished calls are kept this long (GATE_RETENTION, e.g. 7d, 12h, P30D); the send log only as its windows need
        java.time.Duration retention = config.getOptionalValue("gate.retention", String.class).map(Span::parse)
                .orElse(EngineSettings.DEFAULT_RETENTION);
        EngineSettings settings = EngineSettings.defaults().withCallerConcurrency(callers)
                .withTableCare(tableCare(config), selfVacuum(config));
        Tally tally = Tally.NONE;
        if (registry.isResolvable()) {
            meters = new GateMeters(registry.get(), () -> engine != null && !engine.paused());
            tally = meters;
        }
        engine = new Engine(InstanceName.next(), dataSource, "GateEngineDS (" + GateDataSource.ENGINE_JNDI + ")",
                poolSize, scheduler, threads, settings.withRetention(retention, settings.pruneEvery()), tally);
        try {
            declareLimits();
            engine.start();
            if (meters != null) {
                metersRefresh = scheduler.scheduleWithFixedDelay(() -> meters.refresh(engine), 0,
                        METERS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (RuntimeException e) {
            engine.halt();
            engine.release(); // the deployment fails: nothing of this instance is left behind
            throw e;
        }
        LOG.info(() -> "gate ready: status page " + baseUrl() + "/gate/ , API " + baseUrl() + "/gate/api/v1/limits");
    }

    @PreDestroy
    void stop() {
        if (metersRefresh != null) {
            metersRefresh.cancel(false);
        }
        engine.stop();
        if (meters != null) {
            meters.close();
        }
    }

    public Engine engine() {
        return engine;
    }

    /** GATE_SELF_VACUUM: on (the default) or off; off leaves the tables autovacuum skips to the operator. */
    static boolean selfVacuum(Config config) {
        String v = config.getOptionalValue("gate.self-vacuum", String.class).orElse("on").trim()
                .toLowerCase(java.util.Locale.ROOT);
        return switch (v) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new IllegalStateException("GATE_SELF_VACUUM (gate.self-vacuum) must be on or off: " + v);
        };
    }

    /** GATE_VACUUM_HELD_BACK_AFTER (e.g. 10m): a transaction holding vacuum back this long is warned of. */
    static TableCare tableCare(Config config) {
        TableCare d = TableCare.DEFAULTS;
        return config.getOptionalValue("gate.vacuum.held-back-after", String.class).map(Span::parse)
                .map(after -> new TableCare(d.floor(), d.share(), d.rest(), after)).orElse(d);
    }

    private void declareLimits() {
        String declared = ConfigProvider.getConfig().getOptionalValue("gate.limits", String.class).orElse("");
        Map<String, Pace> limits = LimitDeclarations.parse(declared);
        for (Map.Entry<String, Pace> e : limits.entrySet()) {
            try {
                boolean added = engine.limits().declare(e.getKey(), e.getValue());
                LOG.info(() -> added
                        ? "limit " + e.getKey() + " declared: " + e.getValue().calls() + " calls per "
                        + e.getValue().window()
                        : "limit " + e.getKey() + " already in the table; the table's values stay");
            } catch (GateException ex) {
                throw new IllegalStateException("cannot declare limits: " + ex.getMessage(), ex);
            }
        }
    }

    private static String baseUrl() {
        String host = System.getProperty("jboss.bind.address", "localhost");
        if (host.equals("0.0.0.0") || host.equals("127.0.0.1")) {
            host = "localhost";
        }
        int port = 8080 + Integer.getInteger("jboss.socket.binding.port-offset", 0);
        return "http://" + host + ":" + port;
    }
}
