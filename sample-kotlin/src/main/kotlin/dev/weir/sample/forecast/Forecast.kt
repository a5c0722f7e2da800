package dev.weir.sample.forecast

/** A city's forecast; [fresh] is false when it was not fetched because the limit was reached. */
data class Forecast(val city: String, val celsius: Int?, val fresh: Boolean)

/** One reading of a city's station. */
data class Reading(val city: String, val minute: Int, val celsius: Int)
