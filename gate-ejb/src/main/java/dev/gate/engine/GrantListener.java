package dev.gate.engine;

import dev.gate.store.Granter;
import dev.gate.store.InstanceLock;
import dev.gate.store.SessionPinning;
import dev.gate.store.Tx;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * LISTENs for grants made by any gate instance, on one dedicated connection, so that a waiter learns of its grant
 * promptly even when another instance's loop made it. The waiter poll is the safety net while this reconnects.
 * The same connection holds this instance's {@link InstanceLock}: while it is held, granters know that this
 * instance's callers are there to take their grants.
 */
final class GrantListener implements Runnable {

    private static final Logger LOG = Logger.getLogger(GrantListener.class.getName());
    private static final int WAIT_MS = 500;
    // A connection whose network went silent (no reset: a partition, a primary gone without a word) looks idle to
    // LISTEN forever; a round trip after every wait, bounded by the network timeout, finds it and the listener
    // reconnects. The timeout rides a stall (Tx.STALL_MS): a silence that ends within it loses neither the LISTEN nor
    // the instance lock, and pauses nothing. A silent connection is found after a wait and the timeout (about 3.1 s).
    static final long PING_EVERY_MS = WAIT_MS;
    static final int PING_TIMEOUT_MS = Tx.RIDING_NETWORK_TIMEOUT_MS;

    private final DataSource dataSource;
    private final String owner;
    private final java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
    private final Consumer<List<Long>> onGranted;
    private final Consumer<String> onLost;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile String refusal;

    GrantListener(DataSource dataSource, String owner, ThreadFactory threads, Consumer<List<Long>> onGranted,
                  Consumer<String> onLost) {
        this.dataSource = dataSource;
        this.owner = owner;
        this.onGranted = onGranted;
        this.onLost = onLost;
        this.thread = threads.newThread(this);
        this.thread.setName("gate-grant-listener");
        this.thread.setDaemon(true);
    }

    /** Starts listening; waits (at most {@code wait}) until the instance's lock is held, so first calls need no wait. */
    void start(java.time.Duration wait) {
        thread.start();
        try {
            ready.await(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Why this instance must not run on its database (its session does not survive between transactions). */
    java.util.Optional<String> refusal() {
        return java.util.Optional.ofNullable(refusal);
    }

    void stop() {
        stopped = true;
        try {
            thread.join(WAIT_MS + PING_TIMEOUT_MS + 1_000); // its wait and its round trip end first
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        boolean warned = false;
        while (!stopped) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                c.setNetworkTimeout(Runnable::run, PING_TIMEOUT_MS);
                s.execute("LISTEN " + Granter.CHANNEL);
                PGConnection pg = c.unwrap(PGConnection.class);
                if (warned) {
                    LOG.info("grant listener reconnected");
                    warned = false;
                }
                boolean locked = false;
                long pinged = System.nanoTime();
                try {
                    while (!stopped) {
                        if (!locked) {
                            // an older session of ours may hold it until the server notices that session is gone
                            locked = InstanceLock.take(c, owner);
                            if (locked) {
                                checkSession(c);
                                ready.countDown();
                            }
                        }
                        PGNotification[] batch = pg.getNotifications(WAIT_MS);
                        if (batch != null && batch.length > 0) {
                            onGranted.accept(ids(batch));
                        }
                        if (System.nanoTime() - pinged >= PING_EVERY_MS * 1_000_000) {
                            s.execute("SELECT 1");
                            pinged = System.nanoTime();
                        }
                    }
                } finally {
                    // a clean stop: the pooled connection lives on; a lost one is closed, and its error is the news
                    if (locked && !c.isClosed()) {
                        InstanceLock.release(c, owner);
                    }
                }
            } catch (SessionNotKept e) {
                if (!stopped) {
                    onLost.accept(e.getMessage());
                    pause();
                }
            } catch (SQLException | RuntimeException e) {
                if (!stopped) {
                    onLost.accept("the grant listener lost its connection: " + e.getMessage());
                    if (!warned) {
                        LOG.warning("grant listener lost its connection (" + e.getMessage()
                                + "); waiters fall back to polling until it is back");
                        warned = true;
                    }
                    pause();
                }
            }
        }
    }

    // The lock and the LISTEN only work on a connection that keeps its session: checked on every (re)connect.
    private void checkSession(Connection c) throws SQLException {
        java.util.Optional<String> lost = SessionPinning.lost(c, owner, Granter.CHANNEL, dataSource);
        if (lost.isPresent()) {
            if (refusal == null) {
                LOG.severe(lost.get());
            }
            refusal = lost.get();
            ready.countDown();
            throw new SessionNotKept(lost.get());
        }
        refusal = null;
    }

    private static final class SessionNotKept extends RuntimeException {
        SessionNotKept(String message) {
            super(message, null, false, false);
        }
    }

    private static List<Long> ids(PGNotification[] batch) {
        List<Long> ids = new ArrayList<>();
        for (PGNotification n : batch) {
            for (String id : n.getParameter().split(",")) {
                if (!id.isBlank()) {
                    ids.add(Long.parseLong(id.trim()));
                }
            }
        }
        return ids;
    }

    private void pause() {
        try {
            Thread.sleep(WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = true;
        }
    }
}
