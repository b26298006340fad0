#include "sim/once_per_date.hpp"

#include <utility>

namespace dcsim::sim {

OncePerDate::OncePerDate(EventQueue& queue, std::function<void()> action)
    : queue_(&queue), action_(std::move(action)) {}

void OncePerDate::request() {
  if (due_) return;
  due_ = true;
  queue_->after(0, [this] {
    due_ = false;
    action_();
  });
}

} // namespace dcsim::sim
