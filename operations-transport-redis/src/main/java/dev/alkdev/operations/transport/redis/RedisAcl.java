package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.alkdev.operations.protocol.OperationPattern;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.remote.internal.NodeIds;
import dev.alkdev.operations.transport.redis.internal.Groups;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Redis ACL (Redis 7 or later) of one user, for one role of the call protocol: the commands,
 * keys and channels the server lets it use, so that only the users given the right can serve an
 * operation, whatever their code does (docs/redis.md, "Broker permissions").
 *
 * <ul>
 *   <li>{@link #caller}: calls the given operations, through the queue group or routed to a node by
 *       a {@code RemoteCatalog}, sends control events, finds nodes and asks for their statistics.
 *   <li>{@link #server}: serves the given operations (joins their queue group {@code ops.servers},
 *       listens on its node's own channels), announces itself and answers callers' inboxes. It
 *       calls nothing: a server whose handlers call other operations needs {@code
 *       server(...).and(caller(...))}.
 *   <li>{@link #observer}: lists nodes and asks for statistics; neither calls nor serves.
 * </ul>
 *
 * <p>Operations are named as {@link OperationPattern}s, the form every permission of the project
 * shares: an id ({@code billing.charge}), a namespace ({@code billing.*}: every operation of the
 * namespace, whatever its name's depth; a longer prefix such as {@code billing.cards.*} too) or
 * {@code *} (every operation). An id that is no operation id ({@code billing} alone) is refused: it
 * would match nothing.
 *
 * <p>Redis grants channels to every command alike ({@code &pattern}), so the same rule would let a
 * caller that publishes requests also subscribe to them. Each role is therefore written as root
 * rules that hold what it may subscribe to, and <em>selectors</em> (Redis 7), each of which allows
 * its own commands on its own keys and channels only: one for PUBLISH, one for the transport's
 * scripts (EVALSHA, and EVAL after a {@code SCRIPT FLUSH}), one for the commands those scripts run
 * on the queue-group registry. Redis checks every command a script runs against the user's rules,
 * so a caller that may run the publish script still cannot join a group.
 *
 * <p>{@link #privateTo privateTo(token)} keeps a user to its own inboxes, where its transports are
 * given the same private token ({@link RedisOptions.Builder#privateToken}): then no user reads
 * another's replies.
 *
 * <pre>{@code
 * String line = RedisAcl.server(List.of("billing.*"), Optional.of("billing-1"))
 *     .toAclSetuser("billing-node", secret);  // ACL SETUSER billing-node reset on #... ...
 * }</pre>
 *
 * @param root the user's root rules: commands ({@code +ping}), keys ({@code ~pattern}, {@code
 *     %R~pattern}) and channels ({@code &pattern})
 * @param selectors further sets of rules, each allowing its commands on its own keys and channels
 */
public record RedisAcl(Rules root, List<Rules> selectors) {
  /**
   * What every connection of the transport sends besides its role's commands: PING (both
   * connections, every ping interval), CLIENT ID (at connect), INFO (to refuse a Cluster node),
   * SCRIPT LOAD (the queue-group scripts, at connect), CLIENT LIST (reads its subscriber's backlog
   * on the server; without it the transport does not see a subscriber falling behind), SELECT (for
   * a URL with a database; key patterns hold in every database), UNSUBSCRIBE. HELLO and AUTH need
   * no grant. CONFIG GET is left out on purpose: it would show the server's configuration,
   * passwords included; the transport then takes its size limit from its options alone.
   */
  private static final List<String> CONNECTION =
      List.of(
          "+ping",
          "+client|id",
          "+info",
          "+script|load",
          "+client|list",
          "+select",
          "+subscribe",
          "+unsubscribe");

  private static final List<String> PUBLISH = List.of("+publish");

  /** The scripts: EVAL only runs when the server lost the loaded one (SCRIPT FLUSH). */
  private static final List<String> SCRIPTS = List.of("+evalsha", "+eval");

  /** What the publish script runs on the registry of a topic's groups. */
  private static final List<String> PUBLISH_SCRIPT =
      List.of("+smembers", "+rpoplpush", "+lrem", "+llen", "+srem");

  /** What the join and leave scripts run, and the publish script on {@code ops.nodes}. */
  private static final List<String> GROUP_SCRIPTS =
      List.of("+smembers", "+sadd", "+lpos", "+lpush", "+pexpire", "+lrem", "+llen", "+srem");

  private static final String INBOXES = "&" + ProtocolTopics.INBOX_PREFIX + "*";

  /** Every channel rule among inboxes starts with this. */
  private static final String ANY_INBOX_RULE = "&" + ProtocolTopics.INBOX_PREFIX;

  /** The rule {@link #privateTo} leaves a user among inboxes: its own, naming its token. */
  private static final Pattern PRIVATE_INBOXES =
      Pattern.compile(Pattern.quote(ANY_INBOX_RULE) + "([A-Za-z0-9_-]{1,64})\\.\\*");

  /** Commands that subscribe: rules holding one of them and an inbox pattern read inboxes. */
  private static final Set<String> SUBSCRIBING =
      Set.of("+subscribe", "+psubscribe", "+ssubscribe", "+@pubsub", "+@all");

  private static final String NODES = "&" + ProtocolTopics.NODES;
  private static final String CONTROL = "&" + ProtocolTopics.CONTROL;
  private static final String ANY_NODE_SPECS = "&" + ProtocolTopics.NODE_PREFIX + "*.specs";

  /** Copies the selectors, merging those that allow the same commands. */
  public RedisAcl {
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(selectors, "selectors");
    Map<List<String>, Rules> byCommands = new LinkedHashMap<>();
    for (Rules selector : selectors) {
      Objects.requireNonNull(selector, "a selector");
      // Two sets of rules with the same commands, joined, allow what each allowed, and a command
      // naming keys of both (RPOPLPUSH from one members list to another): the roles' selectors
      // hold commands with keys or with channels, never both, and their keys are the registries
      // of operations the user has that role for either way.
      byCommands.merge(selector.commands(), selector, Rules::and);
    }
    selectors = List.copyOf(byCommands.values());
  }

  /**
   * A caller of {@code operations}: subscribes to inboxes and {@code ops.nodes}; publishes their
   * requests (through the publish script, which picks one member of the group {@code ops.servers}
   * and rotates its list, or straight to a node's own channel), control events ({@code ops.ctl}),
   * discovery queries ({@code ops.nodes}) and spec requests to nodes.
   *
   * @param operations ids ({@code billing.charge}), namespaces ({@code billing.*}) or {@code *}
   * @throws IllegalArgumentException if {@code operations} is empty or one of them is none of those
   */
  public static RedisAcl caller(List<String> operations) {
    List<String> ops = globs(operations);
    List<String> channels = new ArrayList<>();
    List<String> scriptKeys = new ArrayList<>();
    List<String> registry = new ArrayList<>();
    for (String op : ops) {
      String topic = ProtocolTopics.REQUEST_PREFIX + op;
      channels.add("&" + topic);
      channels.add("&" + memberChannels(topic));
      channels.add("&" + ProtocolTopics.NODE_PREFIX + "*.req." + op);
      scriptKeys.addAll(groupKeys(topic));
      registry.addAll(groupKeys(topic));
    }
    channels.addAll(List.of(CONTROL, NODES, ANY_NODE_SPECS));
    scriptKeys.add("~" + Groups.groupsKey(ProtocolTopics.CONTROL));
    scriptKeys.add("~" + Groups.groupsKey(ProtocolTopics.NODES));
    registry.add("%R~" + Groups.groupsKey(ProtocolTopics.CONTROL));
    registry.add("%R~" + Groups.groupsKey(ProtocolTopics.NODES));
    return new RedisAcl(
        new Rules(CONNECTION, List.of(), List.of(INBOXES, NODES)),
        List.of(
            new Rules(PUBLISH, List.of(), channels),
            new Rules(SCRIPTS, scriptKeys, List.of()),
            new Rules(PUBLISH_SCRIPT, registry, List.of())));
  }

  /**
   * A server of {@code operations}: subscribes to the member channels of their queue group (and
   * registers them with the join script), to its node's own channels, to {@code ops.ctl} and {@code
   * ops.nodes}; publishes replies to inboxes and its announcements on {@code ops.nodes}.
   *
   * <p>With {@code nodeId} the node's own channels are exactly its own; without it, {@code *}
   * stands for the node id, and the user could also listen on another node's channels, receiving
   * the requests routed to that node for operations it may serve (and running them a second time).
   * Give a node a fixed id where that matters ({@code ServingNode.builder(...).nodeId(...)}, {@code
   * ops serve --node-id}).
   *
   * @param operations ids ({@code billing.charge}), namespaces ({@code billing.*}) or {@code *}
   * @param nodeId the node's id, when it is fixed: 1 to 64 ASCII letters, digits, '_' or '-'
   * @throws IllegalArgumentException if {@code operations} is empty or one of them is none of
   *     those, or if {@code nodeId} is not a node id
   */
  public static RedisAcl server(List<String> operations, Optional<String> nodeId) {
    List<String> ops = globs(operations);
    String node = nodeId.map(NodeIds::require).orElse("*");
    List<String> channels = new ArrayList<>();
    List<String> groupKeys = new ArrayList<>();
    for (String op : ops) {
      String topic = ProtocolTopics.REQUEST_PREFIX + op;
      channels.add("&" + memberChannels(topic));
      channels.add("&" + ProtocolTopics.NODE_PREFIX + node + ".req." + op);
      groupKeys.addAll(groupKeys(topic));
    }
    channels.addAll(List.of(CONTROL, NODES, "&" + ProtocolTopics.NODE_PREFIX + node + ".specs"));
    List<String> scriptKeys = new ArrayList<>(groupKeys);
    scriptKeys.add("~" + Groups.groupsKey(ProtocolTopics.NODES));
    List<String> registry = new ArrayList<>(groupKeys);
    registry.add("%R~" + Groups.groupsKey(ProtocolTopics.NODES));
    return new RedisAcl(
        new Rules(CONNECTION, List.of(), channels),
        List.of(
            new Rules(PUBLISH, List.of(), List.of(INBOXES, NODES)),
            new Rules(SCRIPTS, scriptKeys, List.of()),
            new Rules(GROUP_SCRIPTS, registry, List.of())));
  }

  /**
   * An observer: subscribes to inboxes and {@code ops.nodes}; publishes discovery queries and
   * requests for statistics ({@code ops.nodes}) and spec requests to nodes. It can publish no
   * request and join no group.
   */
  public static RedisAcl observer() {
    return new RedisAcl(
        new Rules(CONNECTION, List.of(), List.of(INBOXES, NODES)),
        List.of(
            new Rules(PUBLISH, List.of(), List.of(NODES, ANY_NODE_SPECS)),
            new Rules(SCRIPTS, List.of("~" + Groups.groupsKey(ProtocolTopics.NODES)), List.of()),
            new Rules(
                List.of("+smembers"),
                List.of("%R~" + Groups.groupsKey(ProtocolTopics.NODES)),
                List.of())));
  }

  /**
   * This ACL for a user whose transports have the private token {@code token} ({@link
   * RedisOptions.Builder#privateToken}, {@code OPS_PRIVATE_TOKEN} for {@code ops}): among inboxes
   * it may subscribe to its own only, {@code &ops.inbox.<token>.*}. Everything else is as it was: a
   * server still publishes replies to every inbox (its PUBLISH selector keeps {@code
   * &ops.inbox.*}). When every user has its own token, none can read another's replies, nor learn
   * from them the request ids to abort or keep alive.
   *
   * <p>The inbox rules replaced are those of the root rules, and of any selector that allows a
   * subscribing command ({@code +subscribe}, {@code +psubscribe}, {@code +ssubscribe}, {@code
   * +@pubsub}, {@code +@all}); broader channel rules (a hand-written {@code &*}) are left as they
   * are. The user may subscribe to its own inboxes even if this ACL had none (a server alone): that
   * reads nothing of anybody else's, and keeps the token for {@link #and}.
   *
   * @param token 1 to 64 ASCII letters, digits, '_' or '-', as the transport's option takes it
   * @throws IllegalArgumentException if it is not
   */
  public RedisAcl privateTo(String token) {
    Objects.requireNonNull(token, "token");
    ProtocolTopics.privateInboxPrefix(token); // checks it
    return narrowedTo(List.of(token));
  }

  /**
   * The private tokens this ACL is narrowed to ({@link #privateTo}): empty when the user may read
   * every inbox, more than one only after {@link #and} of ACLs private to different tokens.
   */
  public List<String> privateTokens() {
    List<String> tokens = new ArrayList<>();
    for (String channel : root.channels()) {
      Matcher own = PRIVATE_INBOXES.matcher(channel);
      if (own.matches()) {
        tokens.add(own.group(1));
      }
    }
    return List.copyOf(tokens);
  }

  /**
   * Everything this allows and everything {@code other} does, for one user with both roles: a
   * server whose handlers call other operations, say. Root rules are joined; selectors stay apart
   * unless they allow the same commands, so each role's commands still reach only its own keys (the
   * join script's commands only the served operations' registries).
   *
   * <p>A private token belongs to the user, not to a role: when either side is {@link #privateTo
   * private to a token}, so is the result, whatever the order, so {@code
   * caller(...).privateTo(t).and(server(...))} is {@code caller(...).and(server(...)).privateTo(t)}
   * (the same rules). Two sides private to different tokens give the user both tokens' inboxes.
   */
  public RedisAcl and(RedisAcl other) {
    Objects.requireNonNull(other, "other");
    List<Rules> all = new ArrayList<>(selectors);
    all.addAll(other.selectors);
    RedisAcl both = new RedisAcl(root.and(other.root), all);
    Set<String> tokens = new LinkedHashSet<>(privateTokens());
    tokens.addAll(other.privateTokens());
    return tokens.isEmpty() ? both : both.narrowedTo(List.copyOf(tokens));
  }

  /**
   * The root's inbox rules replaced by {@code tokens}' own inboxes (in place of the first, or last
   * when there was none), and those of selectors that subscribe.
   */
  private RedisAcl narrowedTo(List<String> tokens) {
    List<String> own = new ArrayList<>();
    for (String token : tokens) {
      own.add("&" + ProtocolTopics.privateInboxPrefix(token) + "*");
    }
    Rules narrowedRoot =
        new Rules(root.commands(), root.keys(), replaced(root.channels(), own, true));
    List<Rules> narrowed = new ArrayList<>();
    for (Rules selector : selectors) {
      narrowed.add(
          selector.commands().stream().anyMatch(SUBSCRIBING::contains)
              ? new Rules(
                  selector.commands(), selector.keys(), replaced(selector.channels(), own, false))
              : selector);
    }
    return new RedisAcl(narrowedRoot, narrowed);
  }

  /**
   * {@code channels} with every inbox rule replaced by {@code own}; appended when there was none
   * and {@code always}.
   */
  private static List<String> replaced(List<String> channels, List<String> own, boolean always) {
    List<String> out = new ArrayList<>();
    boolean added = false;
    for (String channel : channels) {
      if (!channel.startsWith(ANY_INBOX_RULE)) {
        out.add(channel);
      } else if (!added) {
        out.addAll(own);
        added = true;
      }
    }
    if (!added && always) {
      out.addAll(own);
    }
    return out;
  }

  /**
   * One line {@code ACL SETUSER <user> reset on #<sha256 of password> <rules> (<selector>) ...}:
   * for {@code redis-cli} (which passes the words as they are; Redis joins a selector's words
   * between the parentheses), or, with {@code user} in place of {@code ACL SETUSER}, a line of an
   * {@code aclfile}. {@code reset} first, so that the line says everything the user may do. The
   * password is written as its SHA-256, as Redis keeps it: the plain text is in neither the line
   * nor the file.
   *
   * @throws IllegalArgumentException if {@code user} is empty or holds other than ASCII letters,
   *     digits and {@code _ - . @ :}, or {@code password} is empty
   */
  public String toAclSetuser(String user, String password) {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (user.isEmpty() || !user.chars().allMatch(c -> isIdChar(c) || ".@:".indexOf(c) >= 0)) {
      throw new IllegalArgumentException(
          "A user name here is ASCII letters, digits and _ - . @ : (it is one word of the ACL"
              + " line), was '"
              + user
              + "'");
    }
    if (password.isEmpty()) {
      throw new IllegalArgumentException("The password is empty");
    }
    StringBuilder line = new StringBuilder("ACL SETUSER ");
    // reset: off, no password, no keys, no channels, no commands; a new selector allows nothing
    // either. So what follows is all the user may do.
    line.append(user).append(" reset on #").append(sha256(password));
    for (String word : root.words()) {
      line.append(' ').append(word);
    }
    for (Rules selector : selectors) {
      line.append(" (").append(String.join(" ", selector.words())).append(')');
    }
    return line.toString();
  }

  /**
   * One set of ACL rules: commands, keys and channels in Redis's own syntax. Each entry is one word
   * of an ACL line (no spaces or parentheses).
   *
   * @param commands {@code +command}, {@code +command|subcommand}, {@code -@category}...
   * @param keys {@code ~pattern} (read and write), {@code %R~pattern}, {@code %W~pattern}
   * @param channels {@code &pattern}
   */
  public record Rules(List<String> commands, List<String> keys, List<String> channels) {
    /** Copies each list, dropping repeated entries, and refuses words an ACL line cannot hold. */
    public Rules {
      commands = words(commands, "commands", "+", "-");
      keys = words(keys, "keys", "~", "%R~", "%W~", "%RW~");
      channels = words(channels, "channels", "&");
    }

    Rules and(Rules other) {
      return new Rules(
          concat(commands, other.commands),
          concat(keys, other.keys),
          concat(channels, other.channels));
    }

    /** The words of an ACL line: commands, keys, channels. */
    List<String> words() {
      return concat(concat(commands, keys), channels);
    }

    private static List<String> concat(List<String> a, List<String> b) {
      List<String> out = new ArrayList<>(a);
      out.addAll(b);
      return out;
    }

    private static List<String> words(List<String> words, String what, String... prefixes) {
      Objects.requireNonNull(words, what);
      Set<String> out = new LinkedHashSet<>();
      for (String word : words) {
        Objects.requireNonNull(word, "an entry of " + what);
        boolean prefixed = false;
        for (String prefix : prefixes) {
          prefixed |= word.startsWith(prefix) && word.length() > prefix.length();
        }
        if (!prefixed
            || word.chars().anyMatch(c -> c <= ' ' || c == 0x7f || c == '(' || c == ')')) {
          throw new IllegalArgumentException(
              "Not an ACL rule for "
                  + what
                  + ": '"
                  + word
                  + "'; expected one word starting with "
                  + String.join(" or ", prefixes)
                  + ", without whitespace or parentheses");
        }
        out.add(word);
      }
      return List.copyOf(out);
    }
  }

  /**
   * The registry keys of {@code topic}'s queue group {@code ops.servers} (a glob, here), read and
   * write: only that group, so a server cannot make callers publish to a group of another name.
   */
  private static List<String> groupKeys(String topic) {
    return List.of(
        "~" + Groups.groupsKey(topic), "~" + Groups.membersKey(ProtocolTopics.SERVER_GROUP, topic));
  }

  /** The channels of {@code topic}'s group members (Groups#memberChannel), as a glob. */
  private static String memberChannels(String topic) {
    return Groups.MEMBER_CHANNEL_PREFIX + "*:" + topic;
  }

  /**
   * The glob each operation pattern names in a channel or key: the id, {@code namespace.*} or
   * {@code *}. A Redis glob's {@code *} spans dots, so {@code billing.*} is every name of the
   * namespace, however deep, and nothing of another.
   */
  private static List<String> globs(List<String> operations) {
    return OperationPattern.granted(operations).stream().map(RedisAcl::glob).toList();
  }

  /**
   * A pattern written as a glob: {@code *}, {@code prefix.*} or the id (ids hold no glob
   * characters).
   */
  private static String glob(OperationPattern pattern) {
    if (pattern.isAll()) {
      return "*";
    }
    return pattern.isNamespace() ? pattern.prefix() + ".*" : pattern.pattern();
  }

  private static boolean isIdChar(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '-';
  }

  private static String sha256(String password) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(password.getBytes(UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
