//! Impact laws and multi-contact impact problems (filled by issue 5).
