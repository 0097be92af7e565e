package dev.gate.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;

/**
 * Calls of this instance that arrive at one limit while a join of that limit is under way wait for it and then join
 * together, in one statement and one commit (a group join, as a database's group commit): the first to arrive leads
 * and joins whoever is waiting by then (at most {@link #MOST}, or the most it was made with), then hands the lead to
 * the first of those who came meanwhile. A group's members hear one answer each, or the group's failure (nothing of
 * it joined). A limit's group goes once nobody is joining it, so the map holds only limits being joined now.
 *
 * @param <M> a member (one call's join)
 * @param <R> a member's answer
 */
final class JoinGroups<M, R> {

    /** Most members one statement joins. */
    static final int MOST = 64;

    /** Joins {@code members} of {@code limit} together; one answer per member, in their order. */
    @FunctionalInterface
    interface Join<M, R> {
        List<R> join(String limit, List<M> members) throws Exception;
    }

    private static final Object LEAD = new Object();

    private final Join<M, R> join;
    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    // tests only: a leader waits here before it takes its group, so that a group of a known size gathers
    private volatile java.util.concurrent.CountDownLatch holdLeaders;

    private final int most;

    JoinGroups(Join<M, R> join) {
        this(join, MOST);
    }

    /** As above, at most {@code most} members a group. */
    JoinGroups(Join<M, R> join, int most) {
        this.join = join;
        this.most = most;
    }

    private final class Group {
        final ArrayDeque<Waiting> queue = new ArrayDeque<>();
        boolean led;
    }

    private final class Waiting {
        final M member;
        final CompletableFuture<Object> answer = new CompletableFuture<>(); // R, LEAD, or failed with the group's

        Waiting(M member) {
            this.member = member;
        }
    }

    /** {@code member}'s answer, from the group it joined with. */
    @SuppressWarnings("unchecked")
    R join(String limit, M member) throws Exception {
        Group g = groups.computeIfAbsent(limit, k -> new Group());
        Waiting me = new Waiting(member);
        boolean lead;
        synchronized (g) {
            g.queue.add(me);
            lead = !g.led;
            g.led = true;
        }
        if (!lead) {
            Object a;
            try {
                a = me.answer.join(); // a short wait: one statement's round trip, bounded by its timeouts
            } catch (CompletionException e) {
                throw rethrown(e.getCause());
            }
            if (a != LEAD) {
                return (R) a;
            }
        }
        java.util.concurrent.CountDownLatch hold = holdLeaders;
        if (hold != null) {
            awaitUninterruptibly(hold);
        }
        List<Waiting> taken = new ArrayList<>();
        synchronized (g) {
            while (!g.queue.isEmpty() && taken.size() < most) {
                taken.add(g.queue.poll());
            }
        }
        try {
            List<R> answers = join.join(limit, taken.stream().map(w -> w.member).toList());
            R mine = null;
            for (int i = 0; i < taken.size(); i++) {
                if (taken.get(i) == me) {
                    mine = answers.get(i);
                } else {
                    taken.get(i).answer.complete(answers.get(i));
                }
            }
            return mine;
        } catch (Exception | Error e) {
            for (Waiting w : taken) {
                if (w != me) {
                    w.answer.completeExceptionally(e);
                }
            }
            throw e;
        } finally {
            synchronized (g) {
                Waiting next = g.queue.peek();
                if (next != null) {
                    next.answer.complete(LEAD); // it stays in the queue: it takes itself with the rest
                } else {
                    g.led = false;
                    groups.remove(limit, g);
                }
            }
        }
    }

    /** Tests: leaders wait for {@code latch} before they take their group (null: they do not). */
    void holdLeaders(java.util.concurrent.CountDownLatch latch) {
        holdLeaders = latch;
    }

    /** Members of {@code limit}'s group waiting for a join to take them (the one leading counts until taken). */
    int waiting(String limit) {
        Group g = groups.get(limit);
        if (g == null) {
            return 0;
        }
        synchronized (g) {
            return g.queue.size();
        }
    }

    private static void awaitUninterruptibly(java.util.concurrent.CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static Exception rethrown(Throwable cause) {
        if (cause instanceof Exception e) {
            return e;
        }
        if (cause instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(cause);
    }
}
