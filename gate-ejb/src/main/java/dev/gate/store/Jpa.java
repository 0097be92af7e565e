package dev.gate.store;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.Persistence;
import org.hibernate.Session;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The engine's persistence unit ({@value #UNIT}: resource-local over the engine's own DataSource, so the same code
 * runs in the server and beside it): one short transaction per unit of work, with the same bounds as {@link Tx}
 * (READ COMMITTED, lock and statement timeouts, the network timeout) and the same errors (unavailable, busy).
 */
public final class Jpa implements AutoCloseable {

    public static final String UNIT = "gate-engine";

    /** Work done inside the transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(EntityManager em);
    }

    private final EntityManagerFactory emf;
    private final int networkTimeoutMs;
    // Set before the factory closes: while Hibernate closes it, it still reads as open, and work that meets it half
    // closed fails in any way (a named query not found); shared with the twin for stalls, which closes with it.
    private final AtomicBoolean closing;

    public Jpa(DataSource dataSource) {
        this(dataSource, Map.of());
    }

    /** With more of the unit's properties (a test's observer of the factory). */
    Jpa(DataSource dataSource, Map<String, Object> more) {
        this(Persistence.createEntityManagerFactory(UNIT, unit(dataSource, more)), Tx.NETWORK_TIMEOUT_MS,
                new AtomicBoolean());
    }

    private Jpa(EntityManagerFactory emf, int networkTimeoutMs, AtomicBoolean closing) {
        this.emf = emf;
        this.networkTimeoutMs = networkTimeoutMs;
        this.closing = closing;
    }

    private static Map<String, Object> unit(DataSource dataSource, Map<String, Object> more) {
        Map<String, Object> properties = new java.util.HashMap<>(more);
        properties.put("jakarta.persistence.nonJtaDataSource", dataSource);
        return properties;
    }

    /**
     * The same unit for work that nobody waits on: it waits out a stall, as {@link Tx#ridingStalls()}. Shares this
     * unit's factory: closing either closes both.
     */
    public Jpa ridingStalls() {
        return new Jpa(emf, Tx.RIDING_NETWORK_TIMEOUT_MS, closing);
    }

    /**
     * @throws StoreUnavailable the database is unavailable (or read-only): nobody can know what happened
     * @throws StoreBusy        a lock or statement timed out, or a deadlock was broken; nothing was changed
     */
    public <T> T run(Work<T> work) throws StoreUnavailable {
        EntityManager em;
        try {
            em = emf.createEntityManager();
        } catch (IllegalStateException closed) {
            throw new StoreUnavailable("the gate instance is stopping");
        }
        if (closing.get()) {
            em.close();
            throw new StoreUnavailable("the gate instance is stopping");
        }
        EntityTransaction t = em.getTransaction();
        try {
            t.begin();
            em.unwrap(Session.class).doWork(c -> {
                Tx.limitWait(c, networkTimeoutMs);
                ConnectionSettings.inTransaction(c);
            });
            T result = work.run(em);
            t.commit();
            return result;
        } catch (RuntimeException e) {
            if (t.isActive()) {
                try {
                    t.rollback();
                } catch (RuntimeException r) {
                    e.addSuppressed(r);
                }
            }
            SQLException sql = sqlCause(e);
            if (sql != null && Tx.isUnavailable(sql)) {
                throw new StoreUnavailable(sql);
            }
            if (sql != null && StoreBusy.is(sql)) {
                throw new StoreBusy(sql);
            }
            // closed under this work (the instance stopping): its callers are turned away
            if (closing.get() || !emf.isOpen()) {
                throw new StoreUnavailable("the gate instance is stopping");
            }
            throw e;
        } finally {
            if (em.isOpen()) {
                em.close();
            }
        }
    }

    /** The database's clock inside the transaction: the gate's only clock. */
    public static Instant dbNow(EntityManager em) {
        return ((OffsetDateTime) em.createNativeQuery("SELECT clock_timestamp()", OffsetDateTime.class)
                .getSingleResult()).toInstant();
    }

    static SQLException sqlCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                return s;
            }
        }
        return null;
    }

    @Override
    public void close() {
        closing.set(true);
        if (emf.isOpen()) {
            emf.close();
        }
    }
}
