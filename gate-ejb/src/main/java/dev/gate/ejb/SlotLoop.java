package dev.gate.ejb;

import dev.gate.client.CallEndedException;
import dev.gate.client.GatePausedException;
import dev.gate.line.LimitDeclarations;
import dev.gate.line.Pace;
import dev.gate.store.Grant;
import dev.gate.store.GrantPass;
import dev.gate.store.Leases;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The slot loop: for each limit with waiting calls, run the grant transaction when its next slot is due, tell this
 * instance's waiters, and sleep until the earliest next slot, computed from database time (not a fixed fast poll).
 * A slow idle poll is only the safety net for calls joined elsewhere. Also the lease heartbeat.
 */
@Singleton
@Startup
@DependsOn({"Schema", "Line"})
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // each step is its own short local transaction
public class SlotLoop {

    static final Duration IDLE_POLL = Duration.ofSeconds(1);
    static final Duration RETRY = Duration.ofMillis(250);
    static final Duration HEARTBEAT = Duration.ofSeconds(5);

    private static final Logger LOG = Logger.getLogger(SlotLoop.class.getName());

    @EJB
    Line line;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private final Object armLock = new Object();
    private ScheduledFuture<?> armed;
    private long armedAtNanos;
    private ScheduledFuture<?> heartbeat;
    private volatile boolean stopped;
    private volatile boolean paused;
    private volatile long pausedSinceNanos;

    @PostConstruct
    void start() {
        declareLimits();
        heartbeat = scheduler.scheduleWithFixedDelay(this::heartbeat, HEARTBEAT.toMillis(), HEARTBEAT.toMillis(),
                TimeUnit.MILLISECONDS);
        armIn(Duration.ZERO);
        LOG.info(() -> "gate instance " + line.owner() + " started: status page " + baseUrl() + "/gate/ , API "
                + baseUrl() + "/gate/api/v1/limits");
    }

    @PreDestroy
    void stop() {
        stopped = true;
        synchronized (armLock) {
            if (armed != null) {
                armed.cancel(false);
            }
        }
        if (heartbeat != null) {
            heartbeat.cancel(false);
        }
        CallEndedException stopping = new CallEndedException("the gate instance is shutting down");
        try {
            for (Leases.Cleared c : line.leases().cancelOwned(line.owner())) {
                LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                        + " cancelled: its gate instance is shutting down");
            }
        } catch (GatePausedException e) {
            LOG.warning("could not take this instance's waiting calls out of the line (" + e.getMessage()
                    + "); their leases will run out");
        }
        line.waiters().endAll(stopping);
    }

    /** Tells waiters about a pass made anywhere in this instance, and wakes the loop when the limit is next due. */
    public void settle(GrantPass pass) {
        for (Grant g : pass.grants()) {
            LOG.fine(() -> "call " + g.callId() + " limit=" + g.limit() + " class=" + g.callClass() + " granted at "
                    + g.grantedAt());
            if (g.owner().equals(line.owner())) {
                line.waiters().granted(g);
            }
        }
        pass.dueIn().ifPresent(this::armIn);
    }

    private void tick() {
        synchronized (armLock) {
            armed = null;
        }
        if (stopped) {
            return;
        }
        Duration sleep = IDLE_POLL;
        try {
            for (String limit : line.granter().limitsWithWaitingCalls()) {
                GrantPass pass = line.granter().grantDue(limit);
                settle(pass);
                Duration due = pass.dueIn().orElse(IDLE_POLL);
                if (due.compareTo(sleep) < 0) {
                    sleep = due;
                }
            }
            resumed();
        } catch (GatePausedException e) {
            pausedBy(e);
            sleep = RETRY;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "slot loop pass failed; retrying in " + RETRY.toMillis() + " ms", e);
            sleep = RETRY;
        }
        armIn(sleep);
    }

    private void heartbeat() {
        if (stopped) {
            return;
        }
        try {
            line.leases().renewOwned(line.owner(), line.waiters().callIds());
            for (Leases.Cleared c : line.leases().expireLapsed()) {
                LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                        + " expired: its lease ran out (owner " + c.owner() + ")");
                if (c.owner().equals(line.owner())) {
                    line.waiters().ended(c.callId(), new CallEndedException("call " + c.callId()
                            + " expired: its lease ran out"));
                }
            }
            resumed();
        } catch (GatePausedException e) {
            pausedBy(e);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "lease heartbeat failed", e);
        }
    }

    /** Schedules the next pass in {@code delay}, unless one is already due sooner. */
    private void armIn(Duration delay) {
        // round up to whole ms: waking early only costs a pass that finds nothing due
        long delayMs = Math.max(0, (delay.toNanos() + 999_999) / 1_000_000);
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
        synchronized (armLock) {
            if (stopped) {
                return;
            }
            if (armed != null && !armed.isDone() && armedAtNanos - at <= 0) {
                return;
            }
            if (armed != null) {
                armed.cancel(false);
            }
            armed = scheduler.schedule(this::tick, delayMs, TimeUnit.MILLISECONDS);
            armedAtNanos = at;
        }
    }

    private void pausedBy(GatePausedException e) {
        if (!paused) {
            paused = true;
            pausedSinceNanos = System.nanoTime();
            LOG.warning("calls are paused: the gate's database is unavailable: " + e.getMessage());
        }
    }

    private void resumed() {
        if (paused) {
            paused = false;
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedSinceNanos);
            LOG.info("calls resumed: the gate's database is back after " + ms + " ms");
        }
    }

    private void declareLimits() {
        String declared = ConfigProvider.getConfig().getOptionalValue("gate.limits", String.class).orElse("");
        Map<String, Pace> limits = LimitDeclarations.parse(declared);
        for (Map.Entry<String, Pace> e : limits.entrySet()) {
            try {
                boolean added = line.limitTable().declare(e.getKey(), e.getValue());
                LOG.info(() -> added
                        ? "limit " + e.getKey() + " declared: " + e.getValue().calls() + " calls per "
                        + e.getValue().window()
                        : "limit " + e.getKey() + " already in the table; the table's values stay");
            } catch (GatePausedException ex) {
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
