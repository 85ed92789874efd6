package io.pekquitto.auth.acl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of an ACL, as Mosquitto groups them: {@code topic} lines before any {@code user} line are
 * for anonymous clients, those after it for that user; {@code pattern} lines are for every client,
 * wherever they stand.
 */
public record Acl(List<AclRule> anonymous, Map<String, List<AclRule>> byUser, List<AclRule> patterns) {
    public Acl {
        anonymous = List.copyOf(anonymous);
        var copy = new HashMap<String, List<AclRule>>();
        byUser.forEach((user, rules) -> copy.put(user, List.copyOf(rules)));
        byUser = Map.copyOf(copy);
        patterns = List.copyOf(patterns);
    }

    /** The topic rules of a client with {@code username} (anonymous when empty), without the patterns. */
    List<AclRule> topicRules(Optional<String> username) {
        return username.map(user -> byUser.getOrDefault(user, List.of())).orElse(anonymous);
    }

    /** Both ACLs' rules: {@code later}'s rules for a user follow this one's. */
    public Acl with(Acl later) {
        var users = new HashMap<String, List<AclRule>>();
        byUser.forEach((user, rules) -> users.put(user, new ArrayList<>(rules)));
        later.byUser.forEach((user, rules) -> users.computeIfAbsent(user, u -> new ArrayList<>()).addAll(rules));
        var anonymousRules = new ArrayList<>(anonymous);
        anonymousRules.addAll(later.anonymous);
        var patternRules = new ArrayList<>(patterns);
        patternRules.addAll(later.patterns);
        return new Acl(anonymousRules, users, patternRules);
    }
}
