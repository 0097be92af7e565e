package dev.gate.engine;

import dev.gate.api.CallClass;

import dev.gate.api.LimitStatus;
import dev.gate.api.RuleUse;
import dev.gate.domain.Limit;
import dev.gate.domain.Slot;
import dev.gate.rules.AdaptiveRate;
import dev.gate.rules.Pace;
import dev.gate.store.LimitFigures;

import java.time.Duration;

/** A limit's figures as the store read them, told as the status the API and the status page show. */
final class LimitStatuses {

    private LimitStatuses() {
    }

    static LimitStatus of(LimitFigures f) {
        Limit l = f.limit();
        Slot slot = f.slot();
        var options = f.options();
        var size = options.size();
        LimitFigures.Recent r = f.recent();
        return new LimitStatus(l.name(), l.calls(), l.windowMs(), f.usedInWindow(), slot.nextSlotAt(),
                slot.pausedUntil(f.now()), f.savedSends(), f.waiting(), f.oldestWaitMs(), slot.coolDownStep(), f.now(),
                new LimitStatus.Recent(r.sendsPerTenSeconds(), r.expiredLastHour(), r.abandonedLastHour(),
                        r.agedLastHour()),
                options.minInterval().toMillis(),
                options.coolDown().steps().stream().map(Duration::toMillis).toList(),
                f.moreRules().stream().map(u -> use(u.pace(), u.usedInWindow(), f.now())).toList(),
                slot.slowedAt(), slot.slowedBy(), slot.slowedProgram(), slot.slowedCall(),
                options.coolDown().longestAsk().toMillis(),
                l.starvingAfter() == null ? null : l.starvingAfter().toMillis(),
                options.aging() == null ? null : options.aging().after().toMillis(),
                options.aging() == null ? null : CallClass.ofRank(options.aging().upToRank()), options.fairPrograms(), options.burst(),
                options.adaptive() ? new AdaptiveRate(l.calls(), Duration.ofMillis(l.windowMs()))
                        .effective(slot.adaptiveCalls(), slot.adaptiveCutAt(), f.now()) : null,
                options.keyed() ? f.openKeys() : null, options.parent(),
                new LimitStatus.LineBounds(size.maxWaiting(), size.maxWaitingPerProgram(), size.maxKeys(),
                        f.refusedFull(), f.lastFullAt()), use(l.pace(), f.usedInWindow(), f.now()),
                slot.vendorCount(f.now()).map(v -> v.left(slot.sendSeq())).orElse(null),
                slot.vendorCount(f.now()).map(dev.gate.rules.VendorCount::resetAt).orElse(null),
                slot.vendorCount(f.now()).map(v -> slot.vendorProgram()).orElse(null),
                slot.vendorCount(f.now()).map(v -> slot.vendorCall()).orElse(null));
    }

    /** A rule's use; an aligned rule's with its zone, reset time and the end of its current block. */
    private static RuleUse use(Pace pace, long used, java.time.Instant now) {
        if (!pace.isAligned()) {
            return new RuleUse(pace.calls(), pace.window().toMillis(), used);
        }
        return new RuleUse(pace.calls(), pace.window().toMillis(), used, pace.blocks().zone().getId(),
                pace.blocks().at().toString(), pace.blocks().at(now).end());
    }
}
