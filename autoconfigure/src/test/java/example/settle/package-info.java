/** Results of an application's own, outside Weir's packages, whose cost a settle expression reads. */
package example.settle;
