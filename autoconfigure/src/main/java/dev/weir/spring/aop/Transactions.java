package dev.weir.spring.aop;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Whether the transaction bound to the calling thread can still commit. Spring's transactions are
 * optional: without {@code spring-tx} on the classpath there is none, and every answer is no.
 *
 * <p>A {@code @Transactional} method that joins its caller's transaction and ends with an
 * exception marks that whole transaction rollback-only. When such an exception (a nested refusal,
 * or a failure) comes back to Weir's advisor, which runs outside the method's transaction
 * interceptor, the caller's transaction can only roll back: a handler's answer would look like
 * success to the caller, whose commit would then fail with {@code UnexpectedRollbackException}.
 * {@link GuardedMethod} asks this class, and then lets the exception go on to the transaction's
 * owner instead.
 */
final class Transactions {

  private static final boolean PRESENT = ClassUtils.isPresent(
      "org.springframework.transaction.support.TransactionSynchronizationManager", Transactions.class.getClassLoader());

  private Transactions() {
  }

  /** Returns whether a transaction is active on this thread and marked to roll back only. */
  static boolean mustRollBack() {
    return PRESENT && Spring.mustRollBack();
  }

  /** Reads Spring's transaction state; loaded only when {@code spring-tx} is present. */
  private static final class Spring {

    static boolean mustRollBack() {
      if (!TransactionSynchronizationManager.isActualTransactionActive()) {
        return false;
      }
      try {
        // A transaction begun by @Transactional: its status sees every transaction manager's mark.
        return TransactionAspectSupport.currentTransactionStatus().isRollbackOnly();
      } catch (NoTransactionException begunOtherwise) {
        // Begun by a TransactionTemplate or by hand: the resource-based managers (JDBC, JPA,
        // Hibernate) keep the mark on the resources they bound to the thread.
        for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
          if (resource instanceof ResourceHolderSupport holder && holder.isRollbackOnly()) {
            return true;
          }
        }
        return false;
      }
    }
  }
}
