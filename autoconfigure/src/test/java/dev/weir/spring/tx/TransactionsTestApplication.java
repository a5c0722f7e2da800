package dev.weir.spring.tx;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An application with real transactions: an in-memory H2 database, Spring's
 * {@link DataSourceTransactionManager} and {@code @Transactional} as Spring Boot enables it. Each
 * service writes one row per step, so a test sees what was committed.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class TransactionsTestApplication {

  @Bean
  DataSource dataSource() {
    return new EmbeddedDatabaseBuilder().generateUniqueName(true).setType(EmbeddedDatabaseType.H2).build();
  }

  @Bean
  DataSourceTransactionManager transactionManager(DataSource dataSource) {
    return new DataSourceTransactionManager(dataSource);
  }

  @Bean
  JdbcTemplate jdbcTemplate(DataSource dataSource) {
    JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    jdbc.execute("create table steps (name varchar(100) not null)");
    return jdbc;
  }

  @Bean
  Inventory inventory(JdbcTemplate jdbc) {
    return new Inventory(jdbc);
  }

  @Bean
  HandlerCalls handlerCalls() {
    return new HandlerCalls();
  }

  @Bean
  Orders orders(JdbcTemplate jdbc, Inventory inventory, HandlerCalls handlerCalls) {
    return new Orders(jdbc, inventory, handlerCalls);
  }

  @Bean
  Checkout checkout(JdbcTemplate jdbc, Orders orders, DataSourceTransactionManager transactionManager) {
    return new Checkout(jdbc, orders, new TransactionTemplate(transactionManager));
  }

  /** The nested guarded call: no handler of its own; its rule ({@code tx.inner}) refuses every call. */
  static class Inventory {

    private final JdbcTemplate jdbc;

    Inventory(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @RateLimited("tx.inner")
    public void reserve(String item) {
      jdbc.update("insert into steps values (?)", "reserved " + item);
    }

    @RateLimited("tx.inner.open")
    public void fail(String item) {
      throw new IllegalStateException("warehouse down for " + item);
    }
  }

  /** The outer guarded methods: each writes a row, then calls the inventory. */
  static class Orders {

    private final JdbcTemplate jdbc;
    private final Inventory inventory;
    private final HandlerCalls handlerCalls;

    Orders(JdbcTemplate jdbc, Inventory inventory, HandlerCalls handlerCalls) {
      this.jdbc = jdbc;
      this.inventory = inventory;
      this.handlerCalls = handlerCalls;
    }

    @Transactional
    @RateLimited(value = "tx.outer", blockHandler = "busy")
    public String place(String item) {
      jdbc.update("insert into steps values (?)", "ordered " + item);
      inventory.reserve(item);
      return "placed " + item;
    }

    @Transactional
    @RateLimited(value = "tx.outer.refused", blockHandler = "busy")
    public String placeRefused(String item) {
      jdbc.update("insert into steps values (?)", "ordered " + item);
      return "placed " + item;
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    @RateLimited(value = "tx.outer.new", blockHandler = "busy")
    public String placeInItsOwnTransaction(String item) {
      jdbc.update("insert into steps values (?)", "ordered " + item);
      inventory.reserve(item);
      return "placed " + item;
    }

    @RateLimited(value = "tx.outer.plain", blockHandler = "busy")
    public String placeWithoutTransaction(String item) {
      jdbc.update("insert into steps values (?)", "ordered " + item);
      inventory.reserve(item);
      return "placed " + item;
    }

    @Transactional
    @RateLimited(value = "tx.outer.failing", fallback = "later")
    public String placeFailing(String item) {
      jdbc.update("insert into steps values (?)", "ordered " + item);
      inventory.fail(item);
      return "placed " + item;
    }

    String busy(String item, BlockException refusal) {
      handlerCalls.inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive());
      return "busy " + item;
    }

    String later(String item, Throwable failure) {
      handlerCalls.inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive());
      return "later " + item;
    }
  }

  /** Per handler call: whether a transaction was active on the thread while the handler answered. */
  static final class HandlerCalls {
    final List<Boolean> inTransaction = new ArrayList<>();
  }

  /** A caller with a transaction of its own, which the outer methods join unless they start their own. */
  static class Checkout {

    private final JdbcTemplate jdbc;
    private final Orders orders;
    private final TransactionTemplate template;

    Checkout(JdbcTemplate jdbc, Orders orders, TransactionTemplate template) {
      this.jdbc = jdbc;
      this.orders = orders;
      this.template = template;
    }

    /** As {@link #checkout}, in a transaction begun by a template rather than by {@code @Transactional}. */
    public String checkoutByTemplate(String item) {
      return template.execute(status -> {
        jdbc.update("insert into steps values (?)", "checkout " + item);
        return orders.place(item);
      });
    }

    @Transactional
    public String checkout(String item) {
      jdbc.update("insert into steps values (?)", "checkout " + item);
      return orders.place(item);
    }

    @Transactional
    public String checkoutSeparately(String item) {
      jdbc.update("insert into steps values (?)", "checkout " + item);
      return orders.placeInItsOwnTransaction(item);
    }

    @Transactional
    public String checkoutWithoutOrderTransaction(String item) {
      jdbc.update("insert into steps values (?)", "checkout " + item);
      return orders.placeWithoutTransaction(item);
    }

    @Transactional
    public String checkoutFailing(String item) {
      jdbc.update("insert into steps values (?)", "checkout " + item);
      return orders.placeFailing(item);
    }
  }
}
