package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.dev.TcpProxy;
import dev.gate.store.Granter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The listener is the one connection of an instance that only reads: when its network goes silent (a partition, a
 * primary gone without a reset) it must find out by itself, not LISTEN on a dead connection forever, and come back
 * hearing grants once the database can be reached again.
 */
class GrantListenerTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aSilentNetworkIsFoundAndTheListenerHearsGrantsAgainAfterIt() throws Exception {
        TcpProxy proxy = copies.proxy();
        HikariDataSource pool = copies.poolThrough(proxy);
        copies.closeAfter(pool);
        List<Long> heard = new CopyOnWriteArrayList<>();
        List<String> lost = new CopyOnWriteArrayList<>();
        GrantListener listener = new GrantListener(pool, "silent", Executors.defaultThreadFactory(), heard::addAll,
                lost::add);
        listener.start(Duration.ofSeconds(3));
        copies.closeAfter(listener::stop);
        notifyUntilHeard(41, heard);

        proxy.freeze(); // no reset, no error: only a round trip can tell
        long frozenAt = System.nanoTime();
        GateCopies.await("the listener to find its connection silent", Duration.ofSeconds(10), () -> !lost.isEmpty());
        System.out.printf("a silent connection found after %d ms (a round trip every %d ms, %d ms to answer): %s%n",
                Duration.ofNanos(System.nanoTime() - frozenAt).toMillis(), GrantListener.PING_EVERY_MS,
                GrantListener.PING_TIMEOUT_MS, lost.get(0));
        // what the operator reads: the connection's own failure, not the failed lock release after it
        assertTrue(lost.get(0).contains("An I/O error occurred"), lost.get(0));

        proxy.thaw();
        notifyUntilHeard(42, heard);
    }

    // a grant's announcement, as any instance's granter sends it, until this listener hears it
    private void notifyUntilHeard(long callId, List<Long> heard) throws Exception {
        GateCopies.await("the listener to hear call " + callId, Duration.ofSeconds(10), () -> {
            try {
                copies.sql("SELECT pg_notify(?, ?)", Granter.CHANNEL, Long.toString(callId));
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
            return heard.contains(callId);
        });
    }
}
