package dev.gate.dev;

import dev.gate.db.Migrations;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The gate's schema applied once per version of the changelog, as a template database on the tests' server: a fresh
 * test database is a copy of it (about 50 ms) instead of a run of every change set (about 350 ms), some hundreds of
 * times in a build. Named by a digest of the changelog's files, so that a changed change set makes a new template; it
 * is migrated under a name of its own and renamed when complete, so that a template is never half made, and the
 * templates of other versions are dropped.
 */
final class SchemaTemplate {

    private static final Pattern INCLUDE = Pattern.compile("<include file=\"([^\"]+)\"");
    private static String made;

    private SchemaTemplate() {
    }

    /** The template's name on {@code server}, made on first use in this JVM when missing. */
    static synchronized String on(TestDatabase server) {
        if (made != null) {
            return made;
        }
        String name = "gate_template_" + digest();
        try (Connection admin = server.connect(server.adminDatabase()); Statement s = admin.createStatement()) {
            if (!exists(s, name)) {
                String making = name + "_" + ProcessHandle.current().pid();
                s.execute("DROP DATABASE IF EXISTS " + making + " WITH (FORCE)");
                s.execute("CREATE DATABASE " + making);
                try (Connection c = server.connect(making)) {
                    Migrations.apply(c);
                } catch (Exception e) {
                    throw new IllegalStateException("could not apply the gate's schema to " + making + ": "
                            + e.getMessage(), e);
                }
                try {
                    s.execute("ALTER DATABASE " + making + " RENAME TO " + name);
                } catch (SQLException raced) { // another JVM made it meanwhile: theirs serves
                    s.execute("DROP DATABASE IF EXISTS " + making + " WITH (FORCE)");
                    if (!exists(s, name)) {
                        throw raced;
                    }
                }
            }
            dropOthers(s, name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not make the schema's template database " + name + ": "
                    + e.getMessage(), e);
        }
        made = name;
        return name;
    }

    private static boolean exists(Statement s, String name) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
            return rs.next();
        }
    }

    // older versions' templates (not one being made now: it has no digest's length of name)
    private static void dropOthers(Statement s, String keep) throws SQLException {
        java.util.List<String> old = new java.util.ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT datname FROM pg_database WHERE datname ~ '^gate_template_[0-9a-f]{16}$'")) {
            while (rs.next()) {
                if (!rs.getString(1).equals(keep)) {
                    old.add(rs.getString(1));
                }
            }
        }
        for (String name : old) {
            try {
                s.execute("DROP DATABASE IF EXISTS " + name);
            } catch (SQLException inUse) {
                // another build copies from it now: left for the next
            }
        }
    }

    /** The changelog and every file it includes, digested. */
    private static String digest() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            String changelog = read(Migrations.CHANGELOG);
            sha.update(changelog.getBytes(StandardCharsets.UTF_8));
            String folder = Migrations.CHANGELOG.substring(0, Migrations.CHANGELOG.lastIndexOf('/') + 1);
            Matcher m = INCLUDE.matcher(changelog);
            while (m.find()) {
                sha.update(read(folder + m.group(1)).getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String read(String resource) {
        try (InputStream in = Migrations.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
