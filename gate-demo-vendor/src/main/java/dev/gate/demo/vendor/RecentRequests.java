package dev.gate.demo.vendor;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.StringJoiner;

/** The last few requests the vendor received, each with its receipt time: what a 429's log line shows. */
final class RecentRequests {

    private record Request(String path, long nanos) {
    }

    private final int kept;
    private final Deque<Request> last = new ArrayDeque<>();

    RecentRequests(int kept) {
        this.kept = kept;
    }

    /**
     * Records a request received at {@code nanos}; answers the ones before it, newest first, each as
     * {@code path -ms} (how long before this one it came).
     */
    synchronized String received(String path, long nanos) {
        StringJoiner before = new StringJoiner(", ");
        last.descendingIterator().forEachRemaining(r -> before.add(r.path() + " -" + (nanos - r.nanos()) / 1_000_000));
        last.addLast(new Request(path, nanos));
        if (last.size() > kept) {
            last.removeFirst();
        }
        return before.toString();
    }
}
