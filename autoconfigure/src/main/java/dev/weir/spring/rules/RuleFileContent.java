package dev.weir.spring.rules;

import dev.weir.spring.properties.AuthorityRuleProperties;
import dev.weir.spring.properties.DegradeRuleProperties;
import dev.weir.spring.properties.FlowRuleProperties;
import dev.weir.spring.properties.ParamFlowRuleProperties;
import dev.weir.spring.properties.SystemRuleProperties;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The content of a rule file as Spring Boot's binder reads it: the lists of {@code weir.*}
 * ({@code flow}, {@code degrade}, {@code param-flow}, {@code authority}), {@code system}, and
 * {@code cleared}, the kinds of each resource the file gives no rules of (so that they replace
 * those of the sources before it with none).
 */
public final class RuleFileContent {

  private List<FlowRuleProperties> flow = new ArrayList<>();
  private List<DegradeRuleProperties> degrade = new ArrayList<>();
  private List<ParamFlowRuleProperties> paramFlow = new ArrayList<>();
  private List<AuthorityRuleProperties> authority = new ArrayList<>();
  private final SystemRuleProperties system = new SystemRuleProperties();
  private Map<String, List<String>> cleared = new LinkedHashMap<>();

  public List<FlowRuleProperties> getFlow() {
    return flow;
  }

  public void setFlow(List<FlowRuleProperties> flow) {
    this.flow = flow;
  }

  public List<DegradeRuleProperties> getDegrade() {
    return degrade;
  }

  public void setDegrade(List<DegradeRuleProperties> degrade) {
    this.degrade = degrade;
  }

  public List<ParamFlowRuleProperties> getParamFlow() {
    return paramFlow;
  }

  public void setParamFlow(List<ParamFlowRuleProperties> paramFlow) {
    this.paramFlow = paramFlow;
  }

  public List<AuthorityRuleProperties> getAuthority() {
    return authority;
  }

  public void setAuthority(List<AuthorityRuleProperties> authority) {
    this.authority = authority;
  }

  public SystemRuleProperties getSystem() {
    return system;
  }

  public Map<String, List<String>> getCleared() {
    return cleared;
  }

  public void setCleared(Map<String, List<String>> cleared) {
    this.cleared = cleared;
  }
}
