package dev.gate.engine;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The suite's fixed seeds and shaped histories plan every feature the histories can run: no option or operator action
 * goes untried.
 */
class HistoryFeaturesTest {

    @Test
    void theSuitesSeedsPlanEveryFeature() {
        Set<String> planned = new LinkedHashSet<>();
        for (long seed : RandomHistoriesTest.SUITE) {
            planned.addAll(HistoryFeatures.planned(HistoryGenerator.generate(seed)));
        }
        for (String shape : HistoryShapes.NAMES) {
            planned.addAll(HistoryFeatures.planned(HistoryShapes.of(shape, RandomHistoriesTest.SHAPED_SEED)));
        }
        Set<String> missing = new LinkedHashSet<>(HistoryFeatures.PLANNED);
        missing.removeAll(planned);
        assertEquals(Set.of(), missing, () -> "features no seed of the suite plans; seeds that plan them all: "
                + HistoryFeatures.covering(43_000, 2_000));
    }

    @Test
    void everyFeatureAHistoryPlansIsListed() {
        for (long seed = 43_000; seed < 44_000; seed++) {
            Set<String> unknown = new LinkedHashSet<>(HistoryFeatures.planned(HistoryGenerator.generate(seed)));
            unknown.removeAll(HistoryFeatures.PLANNED);
            assertEquals(Set.of(), unknown, "seed " + seed);
        }
    }
}
