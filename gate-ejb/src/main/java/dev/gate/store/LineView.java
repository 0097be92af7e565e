package dev.gate.store;

import dev.gate.client.CallClass;
import dev.gate.client.LimitStatus;
import dev.gate.domain.Call;
import dev.gate.domain.Limit;
import dev.gate.domain.SavedSends;
import dev.gate.domain.Send;
import dev.gate.domain.Slot;
import jakarta.persistence.EntityManager;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The live numbers of the limits, read through the domain entities in one transaction (one snapshot) on the
 * database's clock: each limit's rule, the sends its current window holds, its next slot and cool-down, the saved
 * sends, and who waits in each class and for how long.
 */
public final class LineView {

    private final Jpa jpa;

    public LineView(Jpa jpa) {
        this.jpa = jpa;
    }

    public List<LimitStatus> limits() throws StoreUnavailable {
        return jpa.run(em -> read(em, em.createNamedQuery(Limit.ALL, Limit.class)
                .getResultList()));
    }

    /** One limit's numbers; empty when there is no such limit. */
    public Optional<LimitStatus> limit(String name) throws StoreUnavailable {
        return jpa.run(em -> Optional.ofNullable(em.find(Limit.class, name))
                .flatMap(l -> read(em, List.of(l)).stream().findFirst()));
    }

    private static List<LimitStatus> read(EntityManager em, List<Limit> limits) {
        Instant now = Jpa.dbNow(em);
        Map<String, Map<CallClass, Long>> waiting = new HashMap<>();
        Map<String, Map<CallClass, Long>> oldestMs = new HashMap<>();
        List<Object[]> rows = em.createNamedQuery(Call.WAITING_BY_CLASS, Object[].class).getResultList();
        for (Object[] r : rows) {
            String limit = (String) r[0];
            CallClass cls = (CallClass) r[1];
            waiting.computeIfAbsent(limit, k -> new EnumMap<>(CallClass.class)).put(cls, (Long) r[2]);
            oldestMs.computeIfAbsent(limit, k -> new EnumMap<>(CallClass.class))
                    .put(cls, Duration.between((Instant) r[3], now).toMillis());
        }
        Map<String, Slot> slots = new HashMap<>();
        em.createQuery("SELECT s FROM Slot s", Slot.class).getResultStream().forEach(x -> slots.put(x.limitName(), x));
        Map<String, Long> saved = new HashMap<>();
        em.createQuery("SELECT v FROM SavedSends v", SavedSends.class).getResultStream()
                .forEach(v -> saved.put(v.limitName(), v.count()));
        List<LimitStatus> out = new ArrayList<>();
        for (Limit l : limits) {
            Slot slot = slots.get(l.name());
            if (slot == null) {
                continue; // removed since the limits were read (each statement sees the latest commits)
            }
            long used = em.createNamedQuery(Send.COUNT_SINCE, Long.class)
                    .setParameter("limit", l.name()).setParameter("from", now.minusMillis(l.windowMs()))
                    .getSingleResult();
            out.add(new LimitStatus(l.name(), l.calls(), l.windowMs(), used, slot.nextSlotAt(),
                    slot.pausedUntil(now), saved.getOrDefault(l.name(), 0L),
                    waiting.getOrDefault(l.name(), Map.of()), oldestMs.getOrDefault(l.name(), Map.of())));
        }
        return out;
    }
}
