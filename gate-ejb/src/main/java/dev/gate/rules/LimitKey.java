package dev.gate.rules;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A key of a keyed limit (a user, a tenant, a store) and the name of the key's own limit: {@code template~key} when
 * the key is plain ({@code [A-Za-z0-9._@:-]}) and the name fits 64 characters, else {@code template~=} and a hash of
 * the key, so that any key of 1-200 printable characters has one name, always the same, with no lookup.
 */
public record LimitKey(String template, String key) {

    /** A template's name leaves room for a key: at most this long, so a hashed key keeps 92 bits of its hash. */
    public static final int TEMPLATE_MAX = 40;

    public static final char SEPARATOR = '~';

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._@:-]+");

    public LimitKey {
        LimitName.require(template);
        if (template.length() > TEMPLATE_MAX) {
            throw new IllegalArgumentException("a keyed limit's name is at most " + TEMPLATE_MAX
                    + " characters (its keys' names hold it), was " + template.length());
        }
        if (key == null || key.isEmpty() || key.length() > 200 || key.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("a key is 1 to 200 characters, none of them a control character");
        }
    }

    /** The name of the key's own limit. */
    public String limitName() {
        String plain = template + SEPARATOR + key;
        if (plain.length() <= 64 && PLAIN.matcher(key).matches()) {
            return plain;
        }
        String hash = HexFormat.of().formatHex(sha256(key));
        return template + SEPARATOR + "=" + hash.substring(0, 64 - template.length() - 2);
    }

    /** Whether {@code name} is a key's limit (declared limits never hold the separator). */
    public static boolean isKeyName(String name) {
        return name != null && name.indexOf(SEPARATOR) > 0;
    }

    /** The template of a key's limit; any other limit's own name (metrics count a template's keys as one). */
    public static String templateOf(String name) {
        int at = name.indexOf(SEPARATOR);
        return at > 0 ? name.substring(0, at) : name;
    }

    private static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
