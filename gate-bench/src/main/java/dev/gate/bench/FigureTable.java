package dev.gate.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A printed table of figures, each row with its target and whether it holds, and the verdicts collected for the
 * closing summary. A row without a target is printed for reading, not judged.
 */
final class FigureTable {

    /** Whether a row's figures meet its target; {@code null}: nothing to judge. */
    record Verdict(String figure, String target, boolean holds) {
    }

    private final String title;
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();
    private final List<Verdict> verdicts = new ArrayList<>();

    FigureTable(String title, String... header) {
        this.title = title;
        this.header = List.of(header);
    }

    /** A row; its last cells are the target and the verdict ("-" when none). */
    void row(List<String> cells, String target, Boolean holds) {
        List<String> all = new ArrayList<>(cells);
        all.add(target);
        all.add(holds == null ? "-" : holds ? "holds" : "FAILS");
        rows.add(all);
        if (holds != null) {
            verdicts.add(new Verdict(cells.get(0), target, holds));
        }
    }

    List<Verdict> verdicts() {
        return verdicts;
    }

    void print() {
        System.out.println();
        System.out.println(title);
        List<String> head = new ArrayList<>(header);
        head.add("target");
        head.add("");
        System.out.println("| " + String.join(" | ", head) + " |");
        System.out.println("|" + " --- |".repeat(head.size()));
        for (List<String> r : rows) {
            System.out.println("| " + String.join(" | ", r) + " |");
        }
    }

    static String ms(double millis) {
        return Double.isNaN(millis) ? "n/a" : millis >= 100 ? String.format("%,.0f ms", millis)
                : String.format("%.2f ms", millis);
    }
}
