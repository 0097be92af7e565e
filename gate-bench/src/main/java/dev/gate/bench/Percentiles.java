package dev.gate.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Nearest-rank percentiles of a list of figures. */
final class Percentiles {

    private final List<Double> sorted;

    Percentiles(List<Double> values) {
        this.sorted = new ArrayList<>(values);
        Collections.sort(sorted);
    }

    int count() {
        return sorted.size();
    }

    double at(double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    String summary() {
        return sorted.isEmpty() ? "none" : String.format("p50 %.1f ms, p99 %.1f ms, max %.1f ms (n=%d)", at(0.50),
                at(0.99), sorted.get(sorted.size() - 1), sorted.size());
    }
}
