package io.pekquitto.auth.acl;

import io.pekquitto.auth.Authorizer;
import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.protocol.TopicFilter;
import java.util.ArrayList;
import java.util.List;

/**
 * The default {@link Authorizer} once an ACL is configured: what is not granted is refused, and a
 * {@code deny} rule wins over any grant. A publish is judged by its topic; a subscription by its filter,
 * granted only if a readable rule covers every topic it can match and no {@code deny} rule overlaps it,
 * so no message has to be checked on delivery. Safe from any thread: the rules are immutable.
 */
public final class AclAuthorizer implements Authorizer {
    private final Acl acl;

    public AclAuthorizer(Acl acl) {
        this.acl = acl;
    }

    @Override
    public boolean canPublish(ClientIdentity client, String topic) {
        return canPublish(rules(client), topic);
    }

    @Override
    public boolean canSubscribe(ClientIdentity client, String filter) {
        return canSubscribe(rules(client), filter);
    }

    /** The client's rules, patterns filled in, resolved once: no list is built per PUBLISH. */
    @Override
    public ClientAuthorizer forClient(ClientIdentity client) {
        var rules = List.copyOf(rules(client));
        return new ClientAuthorizer() {
            @Override
            public boolean canPublish(String topic) {
                return AclAuthorizer.canPublish(rules, topic);
            }

            @Override
            public boolean canSubscribe(String filter) {
                return AclAuthorizer.canSubscribe(rules, filter);
            }
        };
    }

    private static boolean canPublish(List<AclRule> rules, String topic) {
        boolean granted = false;
        for (var rule : rules) {
            if (!TopicFilter.matches(rule.filter(), topic)) continue;
            if (rule.access() == AclRule.Access.DENY) return false;
            granted |= rule.access().writes();
        }
        return granted;
    }

    private static boolean canSubscribe(List<AclRule> rules, String filter) {
        boolean granted = false;
        for (var rule : rules) {
            if (rule.access() == AclRule.Access.DENY) {
                if (TopicFilters.overlap(rule.filter(), filter)) return false;
            } else if (rule.access().reads() && TopicFilters.covers(rule.filter(), filter)) {
                granted = true;
            }
        }
        return granted;
    }

    /** The client's topic rules and the patterns that apply to it, filled in. */
    private List<AclRule> rules(ClientIdentity client) {
        var topicRules = acl.topicRules(client.username());
        var rules = new ArrayList<AclRule>(topicRules.size() + acl.patterns().size());
        rules.addAll(topicRules);
        for (var pattern : acl.patterns()) {
            pattern.filterFor(client.clientId(), client.username())
                    .filter(TopicFilter::isValid)
                    .ifPresent(filter -> rules.add(new AclRule(pattern.access(), filter, false)));
        }
        return rules;
    }
}
