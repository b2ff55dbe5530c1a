package dev.alkdev.operations.transport.redis.internal;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Queue groups on a server that has none: where their members are registered, and the scripts that
 * register them and publish to one member of each group, atomically (docs/redis.md).
 *
 * <p>For a topic {@code T}: the set {@code _ops:qg:T} holds the names of the groups subscribed to
 * it, and for each group {@code G} the list {@code _ops:qm:<bytes of G>:G:T} holds its members'
 * private channels (the group's byte length keeps any two (group, topic) pairs apart whatever
 * characters they contain). A member's channel is {@code _ops.q.<client>.<connection>.<n>:<topic>}
 * ({@link #memberChannel}): new for every connection, so a half-open old connection can never
 * receive a second copy.
 */
public final class Groups {
  /** Channels of group members start with this; topics may not. */
  public static final String MEMBER_CHANNEL_PREFIX = "_ops.q.";

  private Groups() {}

  /**
   * The private channel of a group member: {@code _ops.q.<client>.<connection>.<n>:<topic>}. The
   * first three parts make it unique (and new for every connection); the topic is there for the
   * broker's access control. A Redis ACL grants channels by pattern only, and a publisher needs
   * PUBLISH on the member channels the publish script picks: without the topic in the name the only
   * pattern is {@code _ops.q.*}, which lets a caller of one operation publish straight to the
   * members serving any other (their names differ in a counter), and a server of one operation
   * subscribe to the members of any other. With it, {@code _ops.q.*:ops.req.billing.*} names the
   * members of the billing operations and nothing else: the unique part holds no {@code :}, and
   * neither does an operation id ({@code RedisAcl}).
   */
  public static String memberChannel(String client, int connection, long n, String topic) {
    return MEMBER_CHANNEL_PREFIX + client + "." + connection + "." + n + ":" + topic;
  }

  public static String groupsKey(String topic) {
    return "_ops:qg:" + topic;
  }

  /**
   * The members list of {@code group} on {@code topic}; the publish script builds the same name.
   */
  public static String membersKey(String group, String topic) {
    return "_ops:qm:" + group.getBytes(UTF_8).length + ":" + group + ":" + topic;
  }

  /**
   * KEYS[1] the topic's groups set, KEYS[2..n+1] the members lists of the groups ARGV[3..n+2] the
   * publisher believes the topic has; ARGV[1] the topic, ARGV[2] the payload. PUBLISHes to the
   * topic (every plain subscriber), then to one member of each group: the members are taken in turn
   * (RPOPLPUSH rotates the list), and one whose channel nobody hears any more (PUBLISH returned 0:
   * its connection is gone) is removed and the next one tried. Atomic: two publishers can never
   * pick two members for one message.
   *
   * <p>Returns {@code {count}}, the plain subscribers plus the groups reached, when the publisher
   * named the topic's groups exactly. When it did not (its first publish to the topic, or the
   * groups changed since), the script still delivers, reading the members list of a group it was
   * not told of under the name {@link #membersKey} gives it, and returns {@code {count, n,
   * groups...}} with the groups the topic has now, so the publisher names them next time (D85).
   * Never refusing is what keeps one publisher's messages in order: a refused publish retried after
   * the answer would land behind the publishes pipelined after it. So in the steady state every key
   * the script touches is in KEYS; only a publish that meets a change reads a key it was not given,
   * which a single Redis server allows (the transport refuses Cluster, docs/redis.md) and which ACL
   * key patterns still check, command by command.
   *
   * <p>In the steady state a publish runs four commands: SMEMBERS, the topic's PUBLISH, and per
   * group one RPOPLPUSH and one PUBLISH. The list's length is read only when the first member
   * chosen is gone (D88: the script's server time is mostly per command, and the checks it used to
   * make on every publish, SCARD before SMEMBERS and LLEN before and after the rotation, were three
   * of seven). A topic without groups takes the first branch, SMEMBERS and PUBLISH. Callers'
   * inboxes and nodes' own topics, which can have no groups, do not run the script at all: the
   * publisher sends a plain PUBLISH (D83).
   */
  public static final String PUBLISH =
      """
      local groups = redis.call('SMEMBERS', KEYS[1])
      if #groups == 0 then
        local count = redis.call('PUBLISH', ARGV[1], ARGV[2])
        if #ARGV > 2 then return {count, 0} end
        return {count}
      end
      local keyOf = {}
      for i = 3, #ARGV do keyOf[ARGV[i]] = KEYS[i - 1] end
      local named = #groups == #ARGV - 2
      local count = redis.call('PUBLISH', ARGV[1], ARGV[2])
      for _, group in ipairs(groups) do
        local key = keyOf[group]
        if not key then
          named = false
          key = '_ops:qm:' .. #group .. ':' .. group .. ':' .. ARGV[1]
        end
        local reached = false
        local member = redis.call('RPOPLPUSH', key, key)
        if member then
          if redis.call('PUBLISH', member, ARGV[2]) > 0 then
            reached = true
          else
            redis.call('LREM', key, 0, member)
            for i = 1, redis.call('LLEN', key) do
              member = redis.call('RPOPLPUSH', key, key)
              if not member then break end
              if redis.call('PUBLISH', member, ARGV[2]) > 0 then
                reached = true
                break
              end
              redis.call('LREM', key, 0, member)
            end
          end
        end
        if reached then
          count = count + 1
        elseif redis.call('LLEN', key) == 0 then
          redis.call('SREM', KEYS[1], group)
        end
      end
      if named then return {count} end
      local now = redis.call('SMEMBERS', KEYS[1])
      local answer = {count, #now}
      for _, g in ipairs(now) do answer[#answer + 1] = g end
      return answer
      """;

  /**
   * KEYS[1] groups set, KEYS[2] members list; ARGV[1] group, ARGV[2] member channel, ARGV[3] time
   * to live in ms. Adds the member once, and renews both keys' lifetime (members renew
   * periodically, so a registry nobody renews disappears).
   */
  public static final String REGISTER =
      """
      redis.call('SADD', KEYS[1], ARGV[1])
      if not redis.call('LPOS', KEYS[2], ARGV[2]) then
        redis.call('LPUSH', KEYS[2], ARGV[2])
      end
      redis.call('PEXPIRE', KEYS[1], ARGV[3])
      redis.call('PEXPIRE', KEYS[2], ARGV[3])
      return 1
      """;

  /** KEYS[1] groups set, KEYS[2] members list; ARGV[1] group, ARGV[2] member channel. */
  public static final String UNREGISTER =
      """
      redis.call('LREM', KEYS[2], 0, ARGV[2])
      if redis.call('LLEN', KEYS[2]) == 0 then
        redis.call('SREM', KEYS[1], ARGV[1])
      end
      return 1
      """;
}
