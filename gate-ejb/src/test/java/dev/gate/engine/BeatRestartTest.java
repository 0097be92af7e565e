package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import dev.gate.dev.TcpProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * After an idle line the beat restarts from the actual send, its recorded time, also over a slow network: the
 * grant's probe, which decides that the slot is due, is read a round trip before the grant records its send, and a
 * beat counted from the probe would let the next send come that much less than a gap after it.
 */
class BeatRestartTest extends OnOneCopy {

    @Test
    void theSendAfterARestartIsAWholeGapAfterTheRecordedSendWhenTheGrantWasSlow() throws Exception {
        TcpProxy proxy = copies.proxy();
        HikariDataSource pool = copies.poolThrough(proxy);
        // every connection opened before the network slows: opening one takes several answers, longer than the
        // pool waits for one
        pool.getHikariConfigMXBean().setMinimumIdle(GateCopies.POOL);
        Engine slow = copies.start("slow-network", GateCopies.FAST, new ScheduledThreadPoolExecutor(2), pool);
        GateCopies.await("the slow copy's connections open", Duration.ofSeconds(10),
                () -> pool.getHikariPoolMXBean() != null
                        && pool.getHikariPoolMXBean().getTotalConnections() == GateCopies.POOL);
        String limit = "restart";
        // two calls per 6 s: a gap of 3.015 s with the margin, longer than the slow submit below takes (its few round
        // trips at 200 ms each), so that the second call is waiting before its slot comes; and two calls, so that
        // the window (counted from the recorded send) does not hold the second call: the beat alone does
        gate.limits().put(limit, LimitSpec.of(2, Duration.ofSeconds(6)));
        copies.slotLongDue(limit); // idle for an hour: the first send restarts the beat

        // the first call joins through the slow network and is granted in its join (the slot is due): each answer
        // takes 200 ms more (less than the pool's 250 ms check of a connection), so the send is recorded at least
        // 200 ms after the probe read the clock
        proxy.delayAnswers(Duration.ofMillis(200));
        long first = slow.programs().submit("p", limit, CallClass.SCHEDULED, CallOptions.NONE, null).call().id();
        proxy.delayAnswers(Duration.ZERO);
        assertEquals("GRANTED", copies.state(first));
        // the second joins at once on the other copy, and is granted when its slot comes
        long second = gate.programs().submit("p", limit, CallClass.SCHEDULED, CallOptions.NONE, null).call().id();
        assertEquals("WAITING", copies.state(second), "the second waits for its slot");
        GateCopies.await("the second granted", Duration.ofSeconds(10), () -> copies.state(second).equals("GRANTED"));
        long apartUs = copies.count("SELECT (extract(epoch FROM b.granted_at - a.granted_at) * 1000000)::bigint "
                + "FROM gate_call a, gate_call b WHERE a.id = ? AND b.id = ?", first, second);
        System.out.printf("beat restart over a slow network: the second send %.1f ms after the first%n",
                apartUs / 1000.0);
        assertTrue(apartUs >= 3_015_000, "a whole gap after the recorded send: " + apartUs + " µs");
    }
}
