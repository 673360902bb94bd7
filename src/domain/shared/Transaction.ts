declare const transactionBrand: unique symbol;

/**
 * An open transaction of the service's storage, opaque to the domain and the use cases: handed to
 * the ports whose writes must commit together (a user and the job that mails it, `within`), which
 * their adapters know how to join. The `Transactions` port (application) opens one.
 */
export interface Transaction {
  readonly [transactionBrand]: true;
}
