package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.domain.Grant;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A try sent again after its answer was lost: its submission key names the grant the first one made, read from the try
 * statement's {@code prior} columns ({@link FreeSlot#TRY}) and answered as it is, nothing taken. The same key on
 * another limit, or on a call that was never granted, is the program's mistake ({@link SubmissionKeyReused}).
 */
final class LostTryAnswers {

    private LostTryAnswers() {
    }

    /** The grant the key named before, as the try's answer; empty when the key is new. */
    static Optional<FreeSlot.Result> found(ResultSet rs, String limit, String owner, String key) throws SQLException {
        long priorId = rs.getLong("prior_id");
        if (!rs.wasNull()) {
            Instant grantedAt = Times.get(rs, "prior_granted_at");
            String priorLimit = rs.getString("prior_limit");
            if (grantedAt == null || !priorLimit.equals(limit)) {
                throw new SubmissionKeyReused(key, priorLimit);
            }
            return Optional.of(repeated(rs, priorId, limit, owner, grantedAt));
        }
        return Optional.empty();
    }

    /** The grant {@code priorId} the key named before, answered as it is (its class and times from the row). */
    static FreeSlot.Result repeated(ResultSet rs, long priorId, String limit, String owner, Instant grantedAt)
            throws SQLException {
        return new FreeSlot.Result(Optional.of(new Grant(priorId, limit, CallClass.ofRank(rs.getInt("prior_class")),
                owner, Times.get(rs, "prior_enqueued_at"), grantedAt, false)), Duration.ZERO, null, null, true);
    }
}
