package dev.gate.engine;

import dev.gate.client.GatePausedException;
import dev.gate.store.Granter;
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
 */
final class GrantListener implements Runnable {

    private static final Logger LOG = Logger.getLogger(GrantListener.class.getName());
    private static final int WAIT_MS = 500;

    private final DataSource dataSource;
    private final Consumer<List<Long>> onGranted;
    private final Consumer<GatePausedException> onLost;
    private final Thread thread;
    private volatile boolean stopped;

    GrantListener(DataSource dataSource, ThreadFactory threads, Consumer<List<Long>> onGranted,
                  Consumer<GatePausedException> onLost) {
        this.dataSource = dataSource;
        this.onGranted = onGranted;
        this.onLost = onLost;
        this.thread = threads.newThread(this);
        this.thread.setName("gate-grant-listener");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() {
        stopped = true;
        try {
            thread.join(2 * WAIT_MS + 1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        boolean warned = false;
        while (!stopped) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("LISTEN " + Granter.CHANNEL);
                PGConnection pg = c.unwrap(PGConnection.class);
                if (warned) {
                    LOG.info("grant listener reconnected");
                    warned = false;
                }
                while (!stopped) {
                    PGNotification[] batch = pg.getNotifications(WAIT_MS);
                    if (batch != null && batch.length > 0) {
                        onGranted.accept(ids(batch));
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!stopped) {
                    onLost.accept(new GatePausedException("the grant listener lost its connection: "
                            + e.getMessage()));
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
