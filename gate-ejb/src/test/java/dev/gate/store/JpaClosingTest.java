package dev.gate.store;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.dev.GateDatabase;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.cfg.AvailableSettings;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Work that meets the persistence unit closing (the instance stopping while a caller's step runs) tells its caller
 * the instance is stopping ("calls are paused" above), whatever Hibernate throws from a factory half closed. Found by
 * the random histories' long run (seed 99305: a program's step on a copy being killed heard
 * "IllegalArgumentException: No query named 'Call.viewOwned'").
 */
class JpaClosingTest {

    @Test
    void workThatMeetsTheUnitClosingHearsTheInstanceIsStopping() throws Exception {
        GateDatabase db = GateDatabase.fresh("gate_jpa_closing_test");
        CountDownLatch begun = new CountDownLatch(1);
        CountDownLatch closing = new CountDownLatch(1);
        CountDownLatch answered = new CountDownLatch(1);
        // holds the factory's close once it began (it reads as open until its end), until the work has its answer
        SessionFactoryObserver holding = new SessionFactoryObserver() {
            @Override
            public void sessionFactoryClosing(SessionFactory factory) {
                closing.countDown();
                await(answered);
            }
        };
        try (HikariDataSource pool = db.pool(2)) {
            Jpa jpa = new Jpa(pool, Map.of(AvailableSettings.SESSION_FACTORY_OBSERVER, holding));
            CompletableFuture<Object> work = CompletableFuture.supplyAsync(() -> {
                try {
                    return jpa.run(em -> {
                        begun.countDown();
                        await(closing);
                        // what a factory part let go of throws, as Hibernate empties its named queries before the
                        // factory reads as closed (a window of microseconds the long run met; held open here)
                        throw new IllegalArgumentException("No query named 'Call.viewOwned'");
                    });
                } catch (Exception e) {
                    return e;
                } finally {
                    answered.countDown();
                }
            });
            await(begun);
            Thread closer = new Thread(jpa::close, "closer");
            closer.start();
            Object answer = work.get(30, TimeUnit.SECONDS);
            closer.join(30_000);
            assertInstanceOf(StoreUnavailable.class, answer, String.valueOf(answer));
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("waited 20 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
