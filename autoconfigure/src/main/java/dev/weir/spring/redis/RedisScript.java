package dev.weir.spring.redis;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** One Lua script of cluster mode: its bytes, as sent with {@code EVAL}, and its SHA-1 for {@code EVALSHA}. */
final class RedisScript {

  static final RedisScript SLIDING_WINDOW = load("sliding-window.lua");
  static final RedisScript EXACT_WINDOW = load("exact-window.lua");
  static final RedisScript SEVERAL_LIMITS = load("several-limits.lua");
  static final RedisScript ANNOUNCE = load("announce.lua");
  static final RedisScript GCRA = load("gcra.lua");
  static final RedisScript LEASE_WINDOW = load("lease-window.lua");
  static final RedisScript LEASE_GCRA = load("lease-gcra.lua");
  static final RedisScript SETTLE = load("settle.lua");

  final byte[] bytes;
  final String sha;

  private RedisScript(byte[] bytes) {
    this.bytes = bytes;
    this.sha = sha1(bytes);
  }

  /** Reads the resource {@code name} next to this class. */
  static RedisScript load(String name) {
    try (InputStream in = RedisScript.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the classpath");
      }
      return new RedisScript(in.readAllBytes());
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + name, e);
    }
  }

  private static String sha1(byte[] script) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(script));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
