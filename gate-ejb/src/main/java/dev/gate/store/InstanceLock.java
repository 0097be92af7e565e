package dev.gate.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A live gate instance holds a session advisory lock named after it, on the one connection it keeps open (its grant
 * listener's). When its process dies the database ends that session and the lock is gone at once, so a granter
 * (any instance) can tell that the calls the dead instance's callers were waiting for have nobody to give a grant
 * to, and passes them over until their leases run out. Calls owned by programs over HTTP live by their leases only.
 */
public final class InstanceLock {

    /** The advisory lock space of the gate ("gate" in ASCII), so the gate's keys cannot meet another app's. */
    static final int LOCK_SPACE = 0x67617465;

    /** Calls of this owner prefix belong to programs, which renew their leases themselves (over HTTP). */
    public static final String PROGRAM_OWNER_PREFIX = "program:";

    // In the grant's head query: true while the owner can still take its grant. A shared try-lock conflicts only
    // with the owner's own exclusive session lock; it never waits, and it is released at commit.
    static final String OWNER_ALIVE = "(w.owner LIKE '" + PROGRAM_OWNER_PREFIX + "%' OR NOT "
            + "pg_try_advisory_xact_lock_shared(" + LOCK_SPACE + ", hashtext(w.owner)))";

    private InstanceLock() {
    }

    /** Takes the instance's lock on this session; false while another session (an older one of ours) holds it. */
    public static boolean take(Connection c, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_lock(?, hashtext(?))")) {
            ps.setInt(1, LOCK_SPACE);
            ps.setString(2, owner);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** Gives the lock back before the connection returns to its pool (a clean stop). */
    public static void release(Connection c, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(?, hashtext(?))")) {
            ps.setInt(1, LOCK_SPACE);
            ps.setString(2, owner);
            ps.execute();
        }
    }
}
