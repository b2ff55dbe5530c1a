package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.protocol.OperationPattern;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.remote.internal.NodeIds;
import dev.alkdev.operations.transport.nats.internal.ReceiverProbes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one NATS user may publish and subscribe to, for one role of the call protocol: permissions
 * {@code nats-server} enforces, so that only the users given the right can serve an operation,
 * whatever their code does (docs/nats.md, "Broker permissions").
 *
 * <ul>
 *   <li>{@link #caller}: calls the given operations, through the queue group or routed to a node by
 *       a {@code RemoteCatalog}, sends control events, finds nodes and asks for their statistics.
 *   <li>{@link #server}: serves the given operations (only in the queue group {@code ops.servers},
 *       and on its node's own topics), announces itself and answers callers' inboxes. It calls
 *       nothing: a server whose handlers call other operations needs {@code
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
 * <p>{@link #privateTo privateTo(token)} keeps a user to its own inboxes and receiver probes, where
 * its connections are given the same private token ({@link NatsOptions.Builder#privateToken}): then
 * no user reads another's replies or forges its probes.
 *
 * <pre>{@code
 * String entry =
 *     NatsPermissions.server(List.of("billing.*"), Optional.of("billing-1"))
 *         .toConfig("billing-node", secret);
 * // nats-server.conf: authorization { users = [ <entry>, ... ] }
 * }</pre>
 *
 * @param publishAllow the subjects the user may publish to (NATS wildcards {@code *} and {@code >})
 * @param subscribeAllow the subjects the user may subscribe to; an entry {@code "subject queue"}
 *     allows only queue subscriptions in that group, which is how a server is kept to {@code
 *     ops.servers}
 */
public record NatsPermissions(List<String> publishAllow, List<String> subscribeAllow) {
  /**
   * Where each publish's receiver probe comes back (see {@link ReceiverProbes}): every connection
   * of this transport publishes markers there and subscribes to its own part of it.
   */
  private static final String PROBES = ReceiverProbes.SUBJECT_PREFIX + ">";

  /** Every inbox: the protocol allows dots in an inbox id, so more than one token. */
  private static final String INBOXES = ProtocolTopics.INBOX_PREFIX + ">";

  /** The subscription {@link #privateTo} leaves a user among inboxes: its own, naming its token. */
  private static final Pattern PRIVATE_INBOXES =
      Pattern.compile(Pattern.quote(ProtocolTopics.INBOX_PREFIX) + "([A-Za-z0-9_-]{1,64})\\.>");

  /** Copies both lists, dropping repeated entries, and refuses what a config could not carry. */
  public NatsPermissions {
    publishAllow = checked(publishAllow, "publishAllow");
    subscribeAllow = checked(subscribeAllow, "subscribeAllow");
  }

  /**
   * A caller of {@code operations}: publishes their requests (to the queue group's subject and to
   * any node's own), control events ({@code ops.ctl}), discovery queries ({@code ops.nodes}) and
   * spec requests to nodes; subscribes to inboxes and {@code ops.nodes}.
   *
   * @param operations ids ({@code billing.charge}), namespaces ({@code billing.*}) or {@code *}
   * @throws IllegalArgumentException if {@code operations} is empty or one of them is none of those
   */
  public static NatsPermissions caller(List<String> operations) {
    List<String> suffixes = suffixes(operations);
    List<String> publish = new ArrayList<>();
    for (String op : suffixes) {
      publish.add(ProtocolTopics.REQUEST_PREFIX + op);
      publish.add(ProtocolTopics.NODE_PREFIX + "*.req." + op);
    }
    publish.add(ProtocolTopics.CONTROL);
    publish.add(ProtocolTopics.NODES);
    publish.add(ProtocolTopics.NODE_PREFIX + "*.specs");
    publish.add(PROBES);
    return new NatsPermissions(publish, List.of(INBOXES, ProtocolTopics.NODES, PROBES));
  }

  /**
   * A server of {@code operations}: subscribes to their requests in the queue group {@code
   * ops.servers} only (a plain subscription would receive every request beside the group, and
   * another group would take its own share), to its node's own topics, to {@code ops.ctl} and
   * {@code ops.nodes}; publishes replies to inboxes and its announcements on {@code ops.nodes}.
   *
   * <p>With {@code nodeId} the node's own topics are exactly its own; without it, {@code *} stands
   * for the node id, and the user could also listen on another node's topics, receiving the
   * requests routed to that node for operations it may serve (and running them a second time). Give
   * a node a fixed id where that matters ({@code ServingNode.builder(...).nodeId(...)}, {@code ops
   * serve --node-id}).
   *
   * @param operations ids ({@code billing.charge}), namespaces ({@code billing.*}) or {@code *}
   * @param nodeId the node's id, when it is fixed: 1 to 64 ASCII letters, digits, '_' or '-'
   * @throws IllegalArgumentException if {@code operations} is empty or one of them is none of
   *     those, or if {@code nodeId} is not a node id
   */
  public static NatsPermissions server(List<String> operations, Optional<String> nodeId) {
    List<String> suffixes = suffixes(operations);
    String node = nodeId.map(NodeIds::require).orElse("*");
    List<String> subscribe = new ArrayList<>();
    for (String op : suffixes) {
      subscribe.add(ProtocolTopics.REQUEST_PREFIX + op + " " + ProtocolTopics.SERVER_GROUP);
      subscribe.add(ProtocolTopics.NODE_PREFIX + node + ".req." + op);
    }
    subscribe.add(ProtocolTopics.CONTROL);
    subscribe.add(ProtocolTopics.NODES);
    subscribe.add(ProtocolTopics.NODE_PREFIX + node + ".specs");
    subscribe.add(PROBES);
    return new NatsPermissions(List.of(INBOXES, ProtocolTopics.NODES, PROBES), subscribe);
  }

  /**
   * An observer: asks who is there and for statistics ({@code ops.nodes}), and for a node's specs
   * (its {@code specs} topic); subscribes to inboxes and {@code ops.nodes}. It can publish no
   * request and subscribe to none.
   */
  public static NatsPermissions observer() {
    return new NatsPermissions(
        List.of(ProtocolTopics.NODES, ProtocolTopics.NODE_PREFIX + "*.specs", PROBES),
        List.of(INBOXES, ProtocolTopics.NODES, PROBES));
  }

  /**
   * These permissions for a user whose connections have the private token {@code token} ({@link
   * NatsOptions.Builder#privateToken}, {@code OPS_PRIVATE_TOKEN} for {@code ops}): among inboxes it
   * may subscribe to its own only, {@code ops.inbox.<token>.>}, and its receiver probes are {@code
   * _OPS.RCV.<token>.>}, to publish and to subscribe. Everything else is as it was: a server still
   * publishes replies to every inbox. When every user has its own token, none can read another's
   * replies (nor learn from them the request ids to abort or keep alive) or forge another's probes.
   *
   * <p>Every subscription to a subject starting {@code ops.inbox.} and every entry starting {@code
   * _OPS.RCV.} is replaced; entries broader than those (a hand-written {@code >}) are left as they
   * are. The user may subscribe to its own inboxes even if these permissions had no inbox (a server
   * alone): that reads nothing of anybody else's, and keeps the token for {@link #and}.
   *
   * @param token 1 to 64 ASCII letters, digits, '_' or '-', as the transport's option takes it
   * @throws IllegalArgumentException if it is not
   */
  public NatsPermissions privateTo(String token) {
    Objects.requireNonNull(token, "token");
    ProtocolTopics.privateInboxPrefix(token); // checks it
    return narrowedTo(List.of(token));
  }

  /**
   * The private tokens these permissions are narrowed to ({@link #privateTo}): empty when the user
   * may read every inbox, more than one only after {@link #and} of permissions private to different
   * tokens.
   */
  public List<String> privateTokens() {
    List<String> tokens = new ArrayList<>();
    for (String subject : subscribeAllow) {
      Matcher own = PRIVATE_INBOXES.matcher(subject);
      if (own.matches()) {
        tokens.add(own.group(1));
      }
    }
    return List.copyOf(tokens);
  }

  /**
   * Everything this allows and everything {@code other} does, for one user with both roles: a
   * server whose handlers call other operations, say.
   *
   * <p>A private token belongs to the user, not to a role: when either side is {@link #privateTo
   * private to a token}, so is the result, whatever the order, so {@code
   * caller(...).privateTo(t).and(server(...))} is {@code caller(...).and(server(...)).privateTo(t)}
   * (the same subjects). Two sides private to different tokens give the user both tokens' inboxes
   * and probes.
   */
  public NatsPermissions and(NatsPermissions other) {
    Objects.requireNonNull(other, "other");
    List<String> publish = new ArrayList<>(publishAllow);
    publish.addAll(other.publishAllow);
    List<String> subscribe = new ArrayList<>(subscribeAllow);
    subscribe.addAll(other.subscribeAllow);
    NatsPermissions both = new NatsPermissions(publish, subscribe);
    Set<String> tokens = new LinkedHashSet<>(privateTokens());
    tokens.addAll(other.privateTokens());
    return tokens.isEmpty() ? both : both.narrowedTo(List.copyOf(tokens));
  }

  /**
   * Subscriptions to inboxes replaced by {@code tokens}' own inboxes (in place of the first, or
   * last when there was none), and every probe entry, publish and subscribe, by {@code tokens}'
   * probes.
   */
  private NatsPermissions narrowedTo(List<String> tokens) {
    List<String> inboxes = new ArrayList<>();
    List<String> probes = new ArrayList<>();
    for (String token : tokens) {
      inboxes.add(ProtocolTopics.privateInboxPrefix(token) + ">");
      probes.add(ReceiverProbes.privatePrefix(token) + ">");
    }
    List<String> subscribe = replaced(subscribeAllow, ProtocolTopics.INBOX_PREFIX, inboxes);
    return new NatsPermissions(
        replaced(publishAllow, ReceiverProbes.SUBJECT_PREFIX, probes),
        replaced(subscribe, ReceiverProbes.SUBJECT_PREFIX, probes));
  }

  /** {@code subjects} with those starting with {@code prefix} replaced by {@code with}. */
  private static List<String> replaced(List<String> subjects, String prefix, List<String> with) {
    List<String> out = new ArrayList<>();
    boolean added = false;
    for (String subject : subjects) {
      if (!subject.startsWith(prefix)) {
        out.add(subject);
      } else if (!added) {
        out.addAll(with);
        added = true;
      }
    }
    if (!added) {
      out.addAll(with);
    }
    return out;
  }

  /**
   * One user of a {@code nats-server} configuration with these permissions: the object that goes in
   * the list of {@code authorization { users = [ ... ] }}, several separated by commas. Anything
   * not allowed is denied. The password is written as given, quoted; {@code nats-server} also takes
   * a bcrypt hash there, which keeps the secret out of the file.
   *
   * @throws IllegalArgumentException if {@code user} or {@code password} is empty or holds a
   *     control character
   */
  public String toConfig(String user, String password) {
    StringBuilder out = new StringBuilder();
    out.append("{\n");
    out.append("  user: ").append(quoted(checkedText(user, "user"))).append('\n');
    out.append("  password: ").append(quoted(checkedText(password, "password"))).append('\n');
    out.append("  permissions: {\n");
    appendAllow(out, "publish", publishAllow);
    appendAllow(out, "subscribe", subscribeAllow);
    out.append("  }\n");
    out.append('}');
    return out.toString();
  }

  private static void appendAllow(StringBuilder out, String direction, List<String> subjects) {
    out.append("    ").append(direction).append(": {\n");
    out.append("      allow: [\n");
    for (int i = 0; i < subjects.size(); i++) {
      out.append("        ").append(quoted(subjects.get(i)));
      out.append(i + 1 < subjects.size() ? ",\n" : "\n");
    }
    out.append("      ]\n");
    out.append("    }\n");
  }

  /** A double-quoted string of nats-server's configuration format. */
  private static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** The subject suffix of each operation pattern ({@link #suffix}). */
  private static List<String> suffixes(List<String> operations) {
    return OperationPattern.granted(operations).stream().map(NatsPermissions::suffix).toList();
  }

  private static String checkedText(String text, String what) {
    Objects.requireNonNull(text, what);
    if (text.isEmpty()) {
      throw new IllegalArgumentException("The " + what + " is empty");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < ' ' || c == 0x7f) {
        throw new IllegalArgumentException(
            "The " + what + " holds a control character at index " + i + ": not written");
      }
    }
    return text;
  }

  private static List<String> checked(List<String> subjects, String what) {
    Objects.requireNonNull(subjects, what);
    Set<String> out = new LinkedHashSet<>();
    for (String subject : subjects) {
      Objects.requireNonNull(subject, "an entry of " + what);
      if (subject.isBlank()
          || subject.startsWith(" ")
          || subject.endsWith(" ")
          || subject.indexOf(' ') != subject.lastIndexOf(' ')
          || subject.chars().anyMatch(c -> c < ' ' || c == 0x7f || c == '"' || c == '\\')) {
        throw new IllegalArgumentException(
            "Not a subject (or \"subject queue\") in "
                + what
                + ": '"
                + subject
                + "'; expected dot-separated tokens without whitespace, quotes or backslashes,"
                + " and for a queue subscription one space before the queue group");
      }
      out.add(subject);
    }
    return List.copyOf(out);
  }

  /**
   * The subject suffix a pattern names: {@code >} for {@code *}, {@code prefix.>} for {@code
   * prefix.*}, the id itself for an id. NATS's {@code >} matches one or more tokens, so {@code
   * billing.>} is every name of the namespace, however many dots it has, and nothing of another.
   */
  private static String suffix(OperationPattern pattern) {
    if (pattern.isAll()) {
      return ">";
    }
    return pattern.isNamespace() ? pattern.prefix() + ".>" : pattern.pattern();
  }
}
