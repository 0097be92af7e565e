package dev.gate.engine;

/**
 * How many database connections one gate instance needs at once, so that heartbeats and the slot loop never starve
 * behind a big batch of callers: the slot loop, the housekeeping task (lease heartbeat, waiter poll, health probe),
 * the grant listener (it holds its connection), the care of the gate's tables (a vacuum holds one for its run), plus
 * the most caller work allowed in flight at once.
 */
public final class PoolNeeds {

    static final int SLOT_LOOP = 1;
    static final int HOUSEKEEPING = 1;
    static final int LISTENER = 1;
    static final int TABLE_CARE = 1;

    private PoolNeeds() {
    }

    public static int connections(EngineSettings settings) {
        return SLOT_LOOP + HOUSEKEEPING + LISTENER + TABLE_CARE + settings.callerConcurrency();
    }

    /** Refuses a pool too small, naming the pool, its size and the size needed. */
    public static void check(String pool, int size, EngineSettings settings) {
        int needed = connections(settings);
        if (size < needed) {
            throw new IllegalStateException("the database pool " + pool + " has " + size + " connections; the gate"
                    + " needs at least " + needed + " (slot loop " + SLOT_LOOP + ", housekeeping " + HOUSEKEEPING
                    + ", grant listener " + LISTENER + ", table care " + TABLE_CARE + ", callers in flight " + settings.callerConcurrency()
                    + "): raise the pool's size or lower the callers in flight");
        }
    }
}
